package io.tensafe.node.generation;

import io.quarkus.logging.Log;
import io.tensafe.kernels.backend.HeBackend;
import io.tensafe.kernels.helora.OperationCounts;
import io.tensafe.node.adapter.AdapterKey;
import io.tensafe.node.adapter.AdapterRegistry;
import io.tensafe.node.adapter.AdapterRejectedException;
import io.tensafe.node.adapter.AdapterSource;
import io.tensafe.node.adapter.LoadedAdapter;
import io.tensafe.node.adapter.UnknownAdapterException;
import io.tensafe.node.config.NodeConfig;
import io.tensafe.node.metrics.NodeMetrics;
import io.tensafe.node.model.ModelFolder;
import io.tensafe.node.runtime.Generation;
import io.tensafe.node.runtime.HeOperators;
import io.tensafe.node.runtime.InputPrivacy;
import io.tensafe.node.runtime.LoraPath;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.node.runtime.SamplingParameters;
import io.tensafe.node.runtime.TextDelta;
import io.tensafe.node.runtime.TextGenerator;
import io.tensafe.node.tokenizer.QwenTokenizer;
import io.tensafe.node.usage.UsageReport;
import io.tensafe.node.usage.UsageService;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.function.Consumer;

/**
 * The model this node serves, loaded once from {@code tensafe.node.model-dir} on first use, its
 * adapters ({@link AdapterRegistry}, within {@code tensafe.node.adapter-memory-mb}), and the
 * admission control around them: at most {@code tensafe.node.max-concurrency} generations at once;
 * more are refused with 503 and Retry-After rather than queued without bound. Every generation,
 * finished or cancelled, leaves a usage report in the outbox.
 */
@ApplicationScoped
public class ModelService {
  @Inject NodeConfig config;

  @Inject AdapterSource source;
  @Inject HeBackend backend;
  @Inject UsageService usage;
  @Inject NodeMetrics metrics;

  private AdapterRegistry registry;
  private HeOperators operators;
  private QwenDecoder decoder;
  private QwenTokenizer tokenizer;
  private io.tensafe.chat.template.ChatFormat chat;
  private TextGenerator generator;
  private Semaphore slots;

  @jakarta.annotation.PostConstruct
  void registerGauges() {
    metrics.gauge(
        "tensafe_node_adapters_held",
        "adapter versions held in memory",
        () -> heldAdapters().size());
  }

  private synchronized TextGenerator generator() {
    if (generator == null) {
      String dir = config.modelDir().filter(s -> !s.isBlank()).orElse(null);
      if (dir == null) {
        throw NodeProblem.unavailable(
            "this node serves no model: set tensafe.node.model-dir (TENSAFE_NODE_MODEL_DIR)", 0);
      }
      io.tensafe.node.model.ModelVocabulary vocabulary;
      try {
        vocabulary = io.tensafe.node.model.ModelVocabulary.read(Path.of(dir));
        decoder =
            new QwenDecoder(
                ModelFolder.load(Path.of(dir)),
                config.widenWeights()
                    ? io.tensafe.node.runtime.WeightPrecision.F32
                    : io.tensafe.node.runtime.WeightPrecision.HALF);
        tokenizer = QwenTokenizer.fromFile(vocabulary.tokenizerJson());
        chat = vocabulary.chat();
      } catch (IOException e) {
        throw NodeProblem.unavailable("the model folder cannot be loaded: " + e.getMessage(), 0);
      }
      generator = new TextGenerator(decoder, tokenizer, vocabulary.endTokens());
      slots = new Semaphore(config.maxConcurrency());
      Log.infof("serving %s (%s)", dir, decoder.shape());
    }
    return generator;
  }

  /**
   * The prompt text of {@code request}: its prompt, or its messages rendered with the model
   * folder's chat template (loading the model first).
   *
   * @throws NodeProblem 400 for bad messages or ones the template refuses
   */
  String prompt(GenerationRequest request) {
    generator();
    return RequestInputs.prompt(request, chat);
  }

  /**
   * Runs one generation (its {@code n} choices, one after another on one slot, sharing the prompt's
   * prefill) if a slot is free: resolves the adapter (loading it if needed), generates, and stores
   * the usage report durably before returning (so before any final chunk is sent).
   *
   * @throws NodeProblem 400 for a bad request, 404 for an unknown adapter, 422 for an adapter this
   *     node cannot serve, 503 with Retry-After when all slots are busy or storage fails
   */
  Served generate(GenerationRequest request, Consumer<TextDelta> onText) {
    String prompt = prompt(request);
    SamplingParameters parameters = RequestInputs.parameters(request, config.maxNewTokens());
    int choices = RequestInputs.choices(request);
    String requestId = RequestInputs.requestId(request.requestId());
    TextGenerator g = generator();
    long[] promptIds = tokenizer.encode(prompt);
    if (promptIds.length > config.maxPromptTokens()) {
      throw NodeProblem.validation(
          "the prompt has "
              + promptIds.length
              + " tokens; at most "
              + config.maxPromptTokens()
              + " are accepted");
    }
    if (request.maxPromptTokens() != null && promptIds.length > request.maxPromptTokens()) {
      throw NodeProblem.validation(
          "the prompt has "
              + promptIds.length
              + " tokens, more than the "
              + request.maxPromptTokens()
              + " its privacy budget was reserved for (max_prompt_tokens)");
    }
    LoadedAdapter adapter = request.adapter() == null ? null : adapter(request.adapter());
    InputPrivacy privacy = privacy(adapter, request.dpNoiseMultiplier());
    if (!slots.tryAcquire()) {
      metrics.refused();
      throw NodeProblem.unavailable(
          "all " + config.maxConcurrency() + " generation slots are busy", 1);
    }
    Instant started = Instant.now();
    long t0 = System.nanoTime();
    metrics.started();
    try {
      LoraPath lora =
          adapter == null ? null : new LoraPath(adapter.prepared(), LoraPath.Mode.HE, privacy);
      List<Generation> generated = g.generateChoices(promptIds, parameters, choices, lora, onText);
      Generation result = Generation.total(generated);
      double totalMillis = (System.nanoTime() - t0) / 1e6;
      UsageReport report = report(requestId, adapter, lora, privacy, result, started, totalMillis);
      try {
        usage.record(report);
      } catch (IOException e) {
        throw NodeProblem.unavailable("the usage report cannot be stored: " + e.getMessage(), 5);
      }
      metrics.finished(result, lora, totalMillis);
      return new Served(generated, report);
    } finally {
      metrics.ended();
      slots.release();
    }
  }

  /**
   * A finished generation's choices, in order (one unless the request asked for {@code n}), and the
   * usage report stored for it: the prompt once, the choices' completion tokens summed.
   */
  record Served(List<Generation> choices, UsageReport usage) {
    Generation total() {
      return Generation.total(choices);
    }
  }

  private UsageReport report(
      String requestId,
      LoadedAdapter adapter,
      LoraPath lora,
      InputPrivacy privacy,
      Generation g,
      Instant started,
      double totalMillis) {
    OperationCounts c =
        lora == null ? new OperationCounts(0, 0, 0, 0, 0, 0) : lora.operationCounts();
    return new UsageReport(
        requestId,
        config.name(),
        adapter == null ? null : adapter.key().id(),
        adapter == null ? null : adapter.key().version(),
        g.promptTokens(),
        g.completionTokens(),
        g.finishReason(),
        lora == null ? 0 : lora.releases(),
        privacy == null ? 0 : privacy.noiseMultiplier(),
        lora == null ? 0 : lora.heCalls(),
        c.encryptions(),
        c.plaintextProducts(),
        c.decryptions(),
        lora == null ? 0 : lora.heNanos() / 1e6,
        totalMillis,
        started,
        Instant.now());
  }

  /** Resolves (and if needed loads) the adapter a request names. */
  /**
   * The adapter a request names ({@code id@x.y.z}, or {@code id} for its current version), loaded
   * if needed.
   *
   * @throws NodeProblem 400 for a malformed name, 404 unknown, 422 unfit, 503 unavailable
   */
  public LoadedAdapter adapter(String name) {
    int at = name.indexOf('@');
    String id = at < 0 ? name : name.substring(0, at);
    String version = at < 0 ? null : name.substring(at + 1);
    try {
      new AdapterKey(id, version == null ? "0.0.0" : version);
    } catch (IllegalArgumentException e) {
      throw NodeProblem.validation("adapter: " + e.getMessage());
    }
    return loading(() -> registry().resolve(id, version));
  }

  /** A registry call that may load an adapter. */
  @FunctionalInterface
  private interface AdapterLoad {
    LoadedAdapter load() throws UnknownAdapterException, AdapterRejectedException, IOException;
  }

  /** Runs {@code load}, its failures as problems: 404 unknown, 422 unfit, 503 unreachable. */
  private static LoadedAdapter loading(AdapterLoad load) {
    try {
      return load.load();
    } catch (UnknownAdapterException e) {
      throw NodeProblem.notFound(e.getMessage());
    } catch (AdapterRejectedException e) {
      throw NodeProblem.rejectedAdapter(e.getMessage());
    } catch (IOException e) {
      throw NodeProblem.unavailable("the adapter cannot be fetched now: " + e.getMessage(), 5);
    }
  }

  /** The adapter's input mechanism, with the request's larger noise multiplier if it asks. */
  private static InputPrivacy privacy(LoadedAdapter adapter, Double requested) {
    if (adapter == null || adapter.privacy().isEmpty()) {
      if (requested != null) {
        throw NodeProblem.validation(
            "dp_noise_multiplier applies only to an adapter with a DP policy");
      }
      return null;
    }
    InputPrivacy policy = adapter.privacy().get();
    if (requested == null) {
      return policy;
    }
    if (!(requested >= policy.noiseMultiplier() && requested <= 1e6)) {
      throw NodeProblem.validation(
          "dp_noise_multiplier must be in ["
              + policy.noiseMultiplier()
              + ", 1e6] (the adapter's policy is the least noise allowed), was "
              + requested);
    }
    return new InputPrivacy(policy.clipNorm(), requested);
  }

  /** Loads {@code key} and makes it the current version of its id (hot-swap). */
  LoadedAdapter activate(AdapterKey key) {
    generator();
    return loading(() -> registry().activate(key));
  }

  /** The served model's shape, loading the model if needed (503 when none is configured). */
  public io.tensafe.node.model.ModelShape shape() {
    generator();
    return decoder.shape();
  }

  /**
   * The served model's shape as adapters are checked against it, with its experts if it has them;
   * loading the model if needed (503 when none is configured).
   */
  public io.tensafe.tgsp.peft.BaseModelShape adapterShape() {
    generator();
    return decoder.adapterShape();
  }

  /** The adapter ids held now (for heartbeats); empty before the model is loaded. */
  public List<String> heldAdapterIds() {
    AdapterRegistry r = registryIfLoaded();
    return r == null ? List.of() : r.held().stream().map(AdapterKey::id).distinct().toList();
  }

  /** Whether {@code key} is the current version of its id. */
  boolean isActive(AdapterKey key) {
    AdapterRegistry r = registryIfLoaded();
    return r != null && r.current(key.id()).filter(key::equals).isPresent();
  }

  /** The versions held now. */
  public List<AdapterKey> heldAdapters() {
    AdapterRegistry r = registryIfLoaded();
    return r == null ? List.of() : r.held();
  }

  /**
   * The served model's shape from its {@code config.json}, read without loading the weights; empty
   * when no model is configured or its config does not parse (the load will say why).
   */
  public java.util.Optional<io.tensafe.tgsp.peft.BaseModelShape> modelShape() {
    java.util.Optional<String> dir = config.modelDir().filter(d -> !d.isBlank());
    if (dir.isEmpty()) {
      return java.util.Optional.empty();
    }
    try {
      Path configJson = Path.of(dir.get()).resolve("config.json");
      if (java.nio.file.Files.size(configJson) > (1 << 20)) {
        return java.util.Optional.empty();
      }
      return java.util.Optional.of(
          io.tensafe.tgsp.peft.BaseModelShape.fromConfig(
              java.nio.file.Files.readAllBytes(configJson)));
    } catch (IOException | io.tensafe.tgsp.TgspException e) {
      Log.warnf("the model's shape is not reported: %s", e.getMessage());
      return java.util.Optional.empty();
    }
  }

  /** The served model's name (its folder's name), or "none". */
  public String modelName() {
    return config
        .modelDir()
        .filter(d -> !d.isBlank())
        .map(d -> Path.of(d).getFileName().toString())
        .orElse("none");
  }

  private synchronized AdapterRegistry registryIfLoaded() {
    return registry;
  }

  private synchronized AdapterRegistry registry() {
    if (registry == null) {
      generator();
      operators = new HeOperators(backend);
      registry =
          new AdapterRegistry(
              source, decoder.adapterShape(), operators, config.adapterMemoryMb() << 20);
      Log.infof("adapters come from %s", source.describe());
    }
    return registry;
  }

  @PreDestroy
  synchronized void close() {
    if (decoder != null) {
      decoder.close();
      tokenizer.close();
    }
  }
}
