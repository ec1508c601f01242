package io.tensafe.client.session;

import io.tensafe.client.marketplace.MarketplaceApi;
import io.tensafe.client.marketplace.OpenedSession;
import io.tensafe.node.privatemode.ClientDeltas;
import io.tensafe.node.privatemode.ClientKeys;
import io.tensafe.node.privatemode.SitePlan;
import io.tensafe.node.runtime.Generation;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.node.runtime.SamplingParameters;
import io.tensafe.node.runtime.TextDelta;
import io.tensafe.node.runtime.TextGenerator;
import io.tensafe.node.tokenizer.QwenTokenizer;
import io.tensafe.tgsp.routing.RouteDecision;
import io.tensafe.tgsp.routing.RoutedText;
import io.tensafe.tgsp.routing.StepGate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Runs private completions (ADR 0017) on the client's machine: routes {@code auto} with the
 * step-gate over the marketplace's candidates (the prompt never leaves), opens a session with a
 * fresh CKKS key pair, checks the base model, runs the decoder with every adapter delta computed by
 * the node under that key, and ends the session, which the marketplace bills from the frames. The
 * secret key lives only in this process, one per session.
 */
public final class PrivateCompletions {
  private final MarketplaceApi marketplace;
  private final QwenDecoder decoder;
  private final QwenTokenizer tokenizer;
  private final TextGenerator generator;
  private final BaseModelBinding binding;
  private final int maxPromptTokens;
  private final SecureRandom random = new SecureRandom();
  private final AtomicLong routed = new AtomicLong();

  public PrivateCompletions(
      MarketplaceApi marketplace,
      QwenDecoder decoder,
      QwenTokenizer tokenizer,
      long[] endTokens,
      BaseModelBinding binding,
      int maxPromptTokens) {
    this.marketplace = marketplace;
    this.decoder = decoder;
    this.tokenizer = tokenizer;
    this.generator = new TextGenerator(decoder, tokenizer, endTokens);
    this.binding = binding;
    this.maxPromptTokens = maxPromptTokens;
  }

  /**
   * The adapter {@code model} names, or for {@code auto} the step-gate's choice on this machine.
   */
  public String route(String model, List<RoutedText> texts) throws IOException {
    if (!model.equals("auto")) {
      return model;
    }
    MarketplaceApi.Candidates c = marketplace.candidates();
    RouteDecision d =
        StepGate.route(texts, c.candidates(), c.defaultAdapter(), routed.getAndIncrement());
    if (d.reason() == RouteDecision.Reason.NO_MATCH) {
      if (d.adapterId() == null) {
        throw new IllegalArgumentException(
            "no adapter's keywords matched the messages and no default adapter is configured;"
                + " name a model");
      }
      return d.adapterId();
    }
    return d.adapterId() + "@" + d.version();
  }

  /**
   * One completion of {@code prompt} (ChatML already applied) on adapter {@code model} (not {@code
   * auto}).
   *
   * @throws IOException if the marketplace refuses ({@link
   *     io.tensafe.client.marketplace.MarketplaceError}) or fails
   * @throws IllegalArgumentException if the prompt is too long
   * @throws BaseModelMismatchException if the adapter does not run on this client's model
   */
  public CompletionResult complete(
      String model, String prompt, SamplingParameters parameters, Consumer<TextDelta> onText)
      throws IOException, BaseModelMismatchException {
    long[] ids = tokenizer.encode(prompt);
    if (ids.length > maxPromptTokens) {
      throw new IllegalArgumentException(
          "the prompt has " + ids.length + " tokens; at most " + maxPromptTokens);
    }
    OpenedSession session = null;
    try {
      // Fresh key pairs per session, one per ring this model's inputs can need (the plan's rings).
      ClientKeys keys = ClientKeys.generate(SitePlan.ringsOf(decoder.adapterShape()), random);
      session =
          marketplace.open(
              model,
              parameters.maxTokens(),
              Math.max(1, ids.length),
              keys.publicKeys().stream().map(Base64.getEncoder()::encodeToString).toList());
      binding.check(session.configSha256(), session.plan());
      String id = session.id();
      ClientDeltas deltas =
          new ClientDeltas(
              keys,
              session.plan(),
              frame -> marketplace.frame(id, frame, 1L << 30),
              session.terms());
      Generation g;
      try {
        g = generator.generate(ids, parameters, deltas, onText, session.prefillChunk());
      } catch (UncheckedIOException e) {
        throw e.getCause();
      }
      OpenedSession done = session;
      session = null;
      return new CompletionResult(
          g, done.adapter(), done.version(), marketplace.close(done.id()), deltas.counts());
    } finally {
      if (session != null) {
        try {
          marketplace.close(session.id());
        } catch (IOException ignored) {
          // the marketplace ends an idle session itself and bills what it served
        }
      }
    }
  }
}
