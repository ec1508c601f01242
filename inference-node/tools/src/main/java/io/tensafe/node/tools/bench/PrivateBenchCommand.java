package io.tensafe.node.tools.bench;

import io.tensafe.kernels.backend.CpuBackend;
import io.tensafe.kernels.helora.HostedCoefficientOperator;
import io.tensafe.kernels.helora.PrivateClient;
import io.tensafe.kernels.helora.PrivatePacking;
import io.tensafe.kernels.ring.NegacyclicNtt;
import io.tensafe.node.model.ModelShape;
import io.tensafe.node.privatemode.ClientDeltas;
import io.tensafe.node.privatemode.ClientKeys;
import io.tensafe.node.privatemode.NodeSession;
import io.tensafe.node.privatemode.PackedSites;
import io.tensafe.node.privatemode.PrivateBounds;
import io.tensafe.node.privatemode.SitePlan;
import io.tensafe.node.runtime.AdapterDeltas;
import io.tensafe.node.runtime.HeOperators;
import io.tensafe.node.runtime.InputPrivacy;
import io.tensafe.node.runtime.KvCache;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.node.runtime.LoraPath;
import io.tensafe.node.runtime.PreparedAdapter;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.node.runtime.Sampler;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import io.tensafe.tgsp.session.FrameOrder;
import io.tensafe.tgsp.sessionauth.FrameAuth;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code ./tensafe bench private}: per-token decode time of private mode (ADR 0017: the client's
 * base model, both HE rounds per site group under the client's key, frames over a loopback HTTP hop
 * to a node session) beside hosted HE-LoRA, rank-r adapters on q, k, v and o of every layer, in one
 * run on one model and machine. Private mode here runs with its DP noise on (z = 1, C = 1).
 */
@Command(
    name = "private",
    mixinStandardHelpOptions = true,
    description =
        "Decode ms/token of private mode (client base model + two HE rounds per group + relay)"
            + " beside hosted HE-LoRA and the base model, with round trips and bytes per token.")
public final class PrivateBenchCommand implements Callable<Integer> {
  /** arXiv 2501.01672 (client-side base model, CKKS LoRA, ChatGLM2-6B, r = 8), s/token. */
  static final double PUBLISHED_S_PER_TOKEN = 1.61;

  @CommandLine.Mixin BenchOptions options;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Option(
      names = "--baseline-tokens",
      defaultValue = "16",
      description =
          "tokens timed for the base model and hosted mode, cheap beside private mode's"
              + " (default: ${DEFAULT-VALUE})")
  int baselineTokens;

  @Override
  public Integer call() throws Exception {
    BenchOptions.Loaded loaded = options.load(spec.commandLine());
    ModelShape shape = loaded.shape();
    QwenDecoder decoder = loaded.decoder();
    LoraAdapter adapter = loaded.adapter();
    PreparedAdapter prepared = new PreparedAdapter(adapter, new HeOperators(new CpuBackend()));
    System.err.println("timing the base model and hosted HE-LoRA ...");
    double base = time(decoder, null, baselineTokens).msPerToken();
    double hosted =
        time(decoder, new LoraPath(prepared, LoraPath.Mode.HE, null), baselineTokens).msPerToken();

    System.err.println("timing private mode (a fresh client key, a node session behind HTTP) ...");
    SitePlan plan = SitePlan.of(adapter, decoder.adapterShape());
    SecureRandom random = new SecureRandom();
    ClientKeys client = ClientKeys.generate(plan.rings(), random);
    int promptTokens = PROMPT.length;
    List<byte[]> opening = client.publicKeys();
    long keyBytes = opening.stream().mapToLong(k -> k.length).sum();
    PrivateBounds bounds = PrivateBounds.asPackWouldSign(adapter);
    InputPrivacy policy = new InputPrivacy(1, 1);
    FrameOrder order = new FrameOrder(promptTokens, 2 + options.tokens + 1);
    FleetKeyPair fleet = FleetKeyPair.generate("bench", random);
    // The client's frame-key wrap (ADR 0037) travels in the opening and is opened there.
    FrameAuth.Offer offer = FrameAuth.offer(List.of(fleet.publicKey()), opening, random);
    long openingBytes = keyBytes + offer.wrap().length;
    long openStart = System.nanoTime();
    PackedSites packed = PackedSites.pack(adapter, bounds, plan, policy);
    NodeSessionOpener opener =
        () ->
            NodeSession.open(
                packed,
                bounds,
                opening,
                FrameAuth.accept(fleet, offer.wrap(), opening),
                policy,
                order,
                random);
    opener.open();
    double openMs = (System.nanoTime() - openStart) / 1e6;
    // A later session of the same adapter: its sites packed already (ADR 0034), keys only.
    long reopenStart = System.nanoTime();
    NodeSession session = opener.open();
    double reopenMs = (System.nanoTime() - reopenStart) / 1e6;
    long packedBytes = packed.bytes();
    double privately;
    double nodeMs;
    double exchangeMs;
    long trips;
    long sent;
    long received;
    try (LoopbackNode node = new LoopbackNode(session)) {
      loopback = node;
      ClientDeltas deltas =
          new ClientDeltas(
              client, plan, node, session.terms(), offer.byKeyId().get(fleet.publicKey().keyId()));
      Timed t = time(decoder, deltas, options.tokens);
      privately = t.msPerToken();
      var c = deltas.counts();
      // Per timed token: the counters' growth over the timed loop.
      trips = (c.roundTrips() - t.before()[0]) / options.tokens;
      sent = (c.bytesSent() - t.before()[1]) / options.tokens;
      received = (c.bytesReceived() - t.before()[2]) / options.tokens;
      exchangeMs = (c.exchangeNanos() - t.before()[3]) / 1e6 / options.tokens;
      nodeMs = (node.nodeNanos() - t.before()[4]) / 1e6 / options.tokens;
    }
    decoder.close();
    double relay = Math.max(0, exchangeMs - nodeMs);
    double clientHe = Math.max(0, privately - base - exchangeMs);
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("model", options.model);
    r.put("adapter_rank", options.rank);
    int layers = shape.layers();
    int full = loaded.fullLayers();
    int planned = plan.groups().stream().mapToInt(g -> g.sites().size()).sum();
    // Private mode sends every site of the plan at every token (ADR 0034: every expert's, routed
    // or not); hosted mode runs attention and the routed experts' sites only.
    r.put("sites_per_layer", planned / layers);
    r.put("hosted_sites_run_per_layer", loaded.sitesRunPerLayer());
    r.put("experts_adapted", loaded.expertsAdapted());
    r.put("layers", layers);
    r.put("tokens", options.tokens);
    r.put("baseline_tokens", baselineTokens);
    r.put("base_ms_per_token", base);
    r.put("hosted_ms_per_token", hosted);
    r.put("private_ms_per_token", privately);
    r.put("private_over_hosted", privately / hosted);
    r.put("private_node_he_ms_per_token", nodeMs);
    r.put("private_client_he_ms_per_token", clientHe);
    r.put("private_relay_ms_per_token", relay);
    r.put("round_trips_per_token", trips);
    r.put("bytes_sent_per_token", sent);
    r.put("bytes_received_per_token", received);
    r.put("bytes_per_token", sent + received);
    r.put("private_s_per_token", privately / 1000);
    // Per layer: what each mode adds to the base model's time, divided by the layers run.
    r.put("private_added_ms_per_layer", (privately - base) / layers);
    r.put("hosted_added_ms_per_layer", (hosted - base) / layers);
    r.put("private_over_hosted_added", (privately - base) / (hosted - base));
    // At the named shape's layers, what each mode adds to the base model (the base model's own
    // time at that depth is the same for both; docs/benchmarks.md adds it from two --layers runs).
    r.put("extrapolated_layers", loaded.fullLayers());
    r.put("private_added_s_per_token_extrapolated", (privately - base) / layers * full / 1000);
    r.put("hosted_added_s_per_token_extrapolated", (hosted - base) / layers * full / 1000);
    r.put("bytes_per_token_per_layer", (sent + received) / layers);
    r.put("mb_per_token_extrapolated", (double) (sent + received) / layers * full / 1e6);
    r.put("published_s_per_token", PUBLISHED_S_PER_TOKEN);
    r.put("relay", "one loopback HTTP hop");
    r.put("node_session_open_ms", openMs);
    r.put("node_session_reopen_ms", reopenMs);
    r.put("packed_sites_bytes", packedBytes);
    // The opening's keys (public and Galois, ADR 0032) travel once: beside the per-token figure,
    // and amortised only over this session's tokens (its prompt and the decoded ones).
    int sessionTokens = promptTokens + 2 + options.tokens;
    r.put("session_opening_bytes", openingBytes);
    r.put("session_tokens", sessionTokens);
    r.put("bytes_per_token_with_opening", sent + received + openingBytes / sessionTokens);
    r.put("switch_cost_bytes", PrivatePacking.switchCostBytes());
    // Which loops the rings ran on (issue 38): hosted's 50-bit prime on FMA lanes of doubles,
    // private mode's 54-bit primes on 64-bit words.
    NegacyclicNtt hostedRing =
        HostedCoefficientOperator.parametersFor(shape.hiddenSize()).ntts().getFirst();
    r.put("implementation", hostedRing.implementation().name().toLowerCase(Locale.ROOT));
    r.put("lanes", hostedRing.lanes());
    r.put("hosted_arithmetic", hostedRing.arithmetic());
    r.put(
        "private_arithmetic",
        PrivateClient.parametersFor(shape.hiddenSize()).ntts().getFirst().arithmetic());
    if (options.json) {
      StringBuilder line = new StringBuilder("{");
      r.forEach(
          (k, v) ->
              line.append(line.length() > 1 ? "," : "")
                  .append('"')
                  .append(k)
                  .append("\":")
                  .append(
                      v instanceof String t
                          ? "\"" + t + "\""
                          : v instanceof Double d
                              ? String.format(Locale.ROOT, "%.3f", d)
                              : String.valueOf(v)));
      System.out.println(line.append('}'));
    } else {
      System.out.printf(
          Locale.ROOT,
          "%s rank %d: base %.1f ms/token, hosted %.1f, private %.1f (%.2f x hosted; node HE %.1f,"
              + " client HE %.1f, relay %.1f); %d round trips, %.1f MiB sent + %.1f MiB received"
              + " per token; published (arXiv 2501.01672) %.2f s/token%n",
          options.model,
          options.rank,
          base,
          hosted,
          privately,
          privately / hosted,
          nodeMs,
          clientHe,
          relay,
          trips,
          sent / 1048576.0,
          received / 1048576.0,
          PUBLISHED_S_PER_TOKEN);
    }
    return 0;
  }

  private static final long[] PROMPT = {3838, 374, 264, 18986, 2692, 30};

  /** A timed run and, for private mode, the counters read when the timed loop began. */
  private record Timed(double msPerToken, long[] before) {}

  private Timed time(QwenDecoder decoder, AdapterDeltas lora, int tokens) {
    try (KvCache cache = decoder.newCache()) {
      float[] logits = decoder.forward(PROMPT, cache, lora);
      for (int i = 0; i < 2; i++) {
        logits = decoder.forward(new long[] {Sampler.argmax(logits)}, cache, lora);
      }
      long[] before = counters(lora);
      long start = System.nanoTime();
      for (int i = 0; i < tokens; i++) {
        logits = decoder.forward(new long[] {Sampler.argmax(logits)}, cache, lora);
      }
      return new Timed((System.nanoTime() - start) / 1e6 / tokens, before);
    }
  }

  /** The node session's HTTP front while private mode is timed. */
  private LoopbackNode loopback;

  private long[] counters(AdapterDeltas lora) {
    if (lora instanceof ClientDeltas d) {
      var c = d.counts();
      return new long[] {
        c.roundTrips(), c.bytesSent(), c.bytesReceived(), c.exchangeNanos(), loopback.nodeNanos()
      };
    }
    return new long[5];
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new PrivateBenchCommand()).execute(args));
  }

  /** Opens a node session of the bench's adapter: the wrap opened and the keys read each time. */
  @FunctionalInterface
  private interface NodeSessionOpener {
    NodeSession open() throws Exception;
  }
}
