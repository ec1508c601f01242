package io.tensafe.node.generation;

import io.quarkus.logging.Log;
import io.tensafe.node.model.ModelFolder;
import io.tensafe.node.runtime.ChatMessage;
import io.tensafe.node.runtime.Generation;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.node.runtime.SamplingParameters;
import io.tensafe.node.runtime.TextGenerator;
import io.tensafe.node.tokenizer.QwenTokenizer;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.function.Consumer;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The model this node serves, loaded once from {@code tensafe.node.model-dir} on first use, and the
 * admission control around it: at most {@code tensafe.node.max-concurrency} generations at once;
 * more are refused with 503 and Retry-After rather than queued without bound.
 */
@ApplicationScoped
public class ModelService {
  @ConfigProperty(name = "tensafe.node.model-dir")
  Optional<String> modelDir;

  @ConfigProperty(name = "tensafe.node.max-concurrency", defaultValue = "4")
  int maxConcurrency;

  @ConfigProperty(name = "tensafe.node.max-prompt-tokens", defaultValue = "8192")
  int maxPromptTokens;

  @ConfigProperty(name = "tensafe.node.max-new-tokens", defaultValue = "4096")
  int maxNewTokens;

  private QwenDecoder decoder;
  private QwenTokenizer tokenizer;
  private TextGenerator generator;
  private Semaphore slots;

  private synchronized TextGenerator generator() {
    if (generator == null) {
      String dir = modelDir.filter(s -> !s.isBlank()).orElse(null);
      if (dir == null) {
        throw NodeProblem.unavailable(
            "this node serves no model: set tensafe.node.model-dir (TENSAFE_NODE_MODEL_DIR)", 0);
      }
      try {
        decoder = new QwenDecoder(ModelFolder.load(Path.of(dir)));
      } catch (IOException e) {
        throw NodeProblem.unavailable("the model folder cannot be loaded: " + e.getMessage(), 0);
      }
      tokenizer = QwenTokenizer.load();
      generator = new TextGenerator(decoder, tokenizer);
      slots = new Semaphore(maxConcurrency);
      Log.infof("serving %s (%s)", dir, decoder.shape());
    }
    return generator;
  }

  /** The prompt text of a request: its raw prompt, or its messages in ChatML. */
  String prompt(GenerationRequest request) {
    boolean hasPrompt = request.prompt() != null;
    boolean hasMessages = request.messages() != null && !request.messages().isEmpty();
    if (hasPrompt == hasMessages) {
      throw NodeProblem.validation("give exactly one of prompt and messages");
    }
    if (hasPrompt) {
      if (request.prompt().isEmpty()) {
        throw NodeProblem.validation("prompt is empty");
      }
      return request.prompt();
    }
    List<ChatMessage> messages = new ArrayList<>();
    for (GenerationRequest.Message m : request.messages()) {
      if (m == null || m.role() == null || m.content() == null) {
        throw NodeProblem.validation("every message needs a role and content");
      }
      try {
        messages.add(new ChatMessage(m.role(), m.content()));
      } catch (IllegalArgumentException e) {
        throw NodeProblem.validation(e.getMessage());
      }
    }
    return ChatMessage.chatMl(messages);
  }

  SamplingParameters parameters(GenerationRequest r) {
    int max = r.maxTokens() == null ? 128 : r.maxTokens();
    if (max < 1 || max > maxNewTokens) {
      throw NodeProblem.validation("max_tokens must be in [1, " + maxNewTokens + "], was " + max);
    }
    try {
      return new SamplingParameters(
          r.temperature() == null ? 0 : r.temperature(),
          r.topK() == null ? 0 : r.topK(),
          r.topP() == null ? 1 : r.topP(),
          r.seed() == null ? 0 : r.seed(),
          max,
          r.stop() == null ? List.of() : r.stop());
    } catch (IllegalArgumentException e) {
      throw NodeProblem.validation(e.getMessage());
    }
  }

  /**
   * Runs one generation if a slot is free.
   *
   * @throws NodeProblem 503 with Retry-After when all slots are busy
   */
  Generation generate(String prompt, SamplingParameters parameters, Consumer<String> onText) {
    TextGenerator g = generator();
    long[] promptIds = tokenizer.encode(prompt);
    int promptTokens = promptIds.length;
    if (promptTokens > maxPromptTokens) {
      throw NodeProblem.validation(
          "the prompt has "
              + promptTokens
              + " tokens; at most "
              + maxPromptTokens
              + " are accepted");
    }
    if (!slots.tryAcquire()) {
      throw NodeProblem.unavailable("all " + maxConcurrency + " generation slots are busy", 1);
    }
    try {
      return g.generate(promptIds, parameters, onText);
    } finally {
      slots.release();
    }
  }

  @PreDestroy
  synchronized void close() {
    if (decoder != null) {
      decoder.close();
      tokenizer.close();
    }
  }
}
