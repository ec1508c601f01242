package io.tensafe.marketplace.gateway;

import io.tensafe.marketplace.apikey.ApiKeyPrincipal;
import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemKind;
import io.tensafe.tgsp.routing.GateCandidate;
import io.tensafe.tgsp.routing.RouteDecision;
import io.tensafe.tgsp.routing.RoutedText;
import io.tensafe.tgsp.routing.StepGate;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Which adapter version a completion request runs on: the model it names, or for {@code auto} the
 * keyword step-gate's choice ({@code routing.StepGate}). Never a version the API key may not use or
 * one priced above its cap; {@code auto} never one priced above its organisation's auto price cap
 * ({@link io.tensafe.marketplace.autocap.AutoPriceCaps}), the default adapter included.
 * Thread-safe.
 */
@ApplicationScoped
public class ModelResolver {
  @Inject GatewayConfig gateway;
  @Inject ServedVersions versions;
  @Inject io.tensafe.marketplace.autocap.AutoPriceCaps autoCaps;

  /**
   * The version a request runs on, and for {@code model: "auto"} what the step-gate chose and why
   * (recorded with the request; null for a named model).
   */
  public record Resolved(ServedVersion version, String reason) {}

  /**
   * The version {@code model} names ({@code id} or {@code id@x.y.z}), or for {@code auto} the
   * step-gate's choice among the adapters this key may use within its price cap, else the default.
   *
   * @throws ApiProblem 404 for a model the key may not use, 422 price-above-cap for one priced
   *     above the key's cap, 422 when {@code auto} matched nothing and no default serves
   */
  public Resolved resolve(
      ApiKeyPrincipal key, String model, List<RoutedText> routing, ServedCatalogue.Snapshot at) {
    return model.equals("auto")
        ? route(key, routing, at)
        : new Resolved(resolve(key, model, at), null);
  }

  /**
   * The candidates {@code auto} chooses among for this key: the newest published version of each
   * adapter it may use, within its price cap and its organisation's auto price cap, with the
   * manifest's keywords and the price now.
   */
  public List<GateCandidate> candidates(ApiKeyPrincipal key) {
    return candidates(key, versions.newestForKey(key), autoCap(key));
  }

  /** The organisation's auto price cap of {@code key}, read once per routing. */
  private io.tensafe.marketplace.apikey.PriceCap autoCap(ApiKeyPrincipal key) {
    return autoCaps.of(key.organisationId()).cap();
  }

  private static List<GateCandidate> candidates(
      ApiKeyPrincipal key,
      List<ServedVersion> newest,
      io.tensafe.marketplace.apikey.PriceCap auto) {
    return newest.stream()
        .filter(v -> v.withinCap(key.maxPrice()) && v.withinCap(auto))
        .map(
            v ->
                new GateCandidate(
                    v.adapterId(),
                    v.version(),
                    v.keywords(),
                    v.currency(),
                    v.promptMicrosPer1kTokens() + v.completionMicrosPer1kTokens()))
        .toList();
  }

  /** What a private-mode client's own step-gate chooses among, and the adapter it falls back to. */
  public record PrivateChoices(Optional<String> defaultAdapter, List<GateCandidate> candidates) {}

  /**
   * What {@code auto} chooses among in private mode, where the client runs the step-gate itself and
   * then opens its session by name (ADR 0017), so the marketplace cannot tell that session's model
   * from one the client named: {@link #candidates} whose private price (paid for prompt and
   * completion tokens alike) is within the organisation's auto price cap too, and the default
   * adapter only when its newest version is within that cap in both modes (none otherwise, as
   * {@code auto} has no default above the cap in hosted mode).
   */
  @jakarta.transaction.Transactional
  public PrivateChoices forPrivateClients(ApiKeyPrincipal key) {
    io.tensafe.marketplace.apikey.PriceCap auto = autoCap(key);
    List<ServedVersion> newest = versions.newestForKey(key);
    List<GateCandidate> within =
        candidates(key, newest, auto).stream()
            .filter(c -> privateWithin(auto, c.adapterId(), c.version(), c.currency()))
            .toList();
    Optional<String> fallback =
        gateway
            .defaultAdapter()
            .filter(
                id ->
                    newest.stream()
                        .anyMatch(
                            v ->
                                v.adapterId().equals(id)
                                    && v.withinCap(auto)
                                    && privateWithin(auto, id, v.version(), v.currency())));
    return new PrivateChoices(fallback, within);
  }

  private boolean privateWithin(
      io.tensafe.marketplace.apikey.PriceCap cap, String adapterId, String version, String cur) {
    long price = versions.privatePriceNow(adapterId, version);
    return cap.allows(cur, price, price);
  }

  /** The adapter {@code auto} falls back to when no keyword matches, if one is configured. */
  public Optional<String> defaultAdapter() {
    return gateway.defaultAdapter();
  }

  private Resolved route(
      ApiKeyPrincipal key, List<RoutedText> routing, ServedCatalogue.Snapshot at) {
    // Routing never picks an adapter priced above the key's cap or the organisation's auto cap.
    io.tensafe.marketplace.apikey.PriceCap auto = autoCap(key);
    List<GateCandidate> candidates = candidates(key, versions.newestForKey(key, at), auto);
    RouteDecision decision =
        StepGate.route(
            routing,
            candidates,
            gateway.defaultAdapter().orElse(null),
            routedRequests.getAndIncrement());
    String reason =
        decision.reason().name().toLowerCase(Locale.ROOT) + ": " + decision.explanation();
    if (decision.reason() != RouteDecision.Reason.NO_MATCH) {
      return new Resolved(
          resolve(key, decision.adapterId() + "@" + decision.version(), at), reason);
    }
    String nothing =
        "no keyword of the "
            + candidates.size()
            + " adapter(s) this API key may use matched the messages";
    if (gateway.defaultAdapter().isEmpty()) {
      throw noMatch(nothing + ", and no default adapter is configured; name a model");
    }
    ServedVersion fallback;
    try {
      fallback = resolve(key, gateway.defaultAdapter().get(), at);
    } catch (ApiProblem unavailable) {
      // Not the client's model: do not answer as if it had asked for the default by name.
      throw noMatch(
          nothing
              + ", and the default adapter is not available to this API key ("
              + (unavailable.type().equals(ProblemKind.PRICE_ABOVE_CAP)
                  ? "priced above its cap"
                  : "not published to it")
              + "); name a model");
    }
    if (!fallback.withinCap(auto)) {
      throw noMatch(
          nothing
              + ", and the default adapter is priced above this organisation's auto price cap ("
              + auto
              + "); name a model, or raise the cap");
    }
    return new Resolved(fallback, reason);
  }

  private static ApiProblem noMatch(String detail) {
    return new ApiProblem(ProblemKind.VALIDATION, 422, "No adapter matched", detail)
        .withParam("model");
  }

  /** Advances once per routed request: whose turn it is among adapters tied after price. */
  private final AtomicLong routedRequests = new AtomicLong();

  /**
   * The version {@code model} names ({@code id} or {@code id@x.y.z}) for this key; never {@code
   * auto} (the caller routes first).
   *
   * @throws ApiProblem as {@link #resolve(ApiKeyPrincipal, String, List, ServedCatalogue.Snapshot)}
   */
  public ServedVersion named(ApiKeyPrincipal key, String model, ServedCatalogue.Snapshot at) {
    return resolve(key, model, at);
  }

  private ServedVersion resolve(ApiKeyPrincipal key, String model, ServedCatalogue.Snapshot at) {
    int sign = model.indexOf('@');
    String id = sign < 0 ? model : model.substring(0, sign);
    String version = sign < 0 ? null : model.substring(sign + 1);
    ServedVersion found =
        versions
            .find(key, id, version, at)
            .orElseThrow(
                () ->
                    new ApiProblem(
                            ProblemKind.NOT_FOUND,
                            404,
                            "Model not found",
                            "model '" + model + "' does not exist or this API key may not use it")
                        .withParam("model"));
    if (!found.withinCap(key.maxPrice())) {
      throw new ApiProblem(
              ProblemKind.PRICE_ABOVE_CAP,
              "model '"
                  + model
                  + "' costs "
                  + found.currency()
                  + " "
                  + found.promptMicrosPer1kTokens()
                  + " / "
                  + found.completionMicrosPer1kTokens()
                  + " micro-units per 1k prompt / completion tokens; this API key pays at most "
                  + key.maxPrice())
          .withParam("model");
    }
    return found;
  }
}
