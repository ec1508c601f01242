package io.tensafe.node.runtime;

import io.tensafe.chat.constraint.OutputPrefix;
import io.tensafe.node.tokenizer.QwenTokenizer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.Consumer;

/**
 * Prompt in, text out: tokenizes, prefills, then decodes one token at a time with a {@link
 * Sampler}, streaming text as it becomes final. Generation ends at one of the model folder's
 * end-of-sequence tokens, at the first stop string (excluded from the text), after the first {@link
 * SamplingParameters#endAfter} (included), or after max_tokens. Streamed pieces never include a
 * stop string or any part of one: text that might begin a stop string is held back until it cannot.
 *
 * <p>With a {@link SamplingParameters#format} (a JSON value, or forced tool calls), each step draws
 * only among the tokens that keep the text a valid prefix of the format's language ({@link
 * JsonTokenMask}), and an end-of-sequence id only once the value is complete; a complete value that
 * cannot go on leaves only the end ids. So a generation that ends with "stop" (and no stop string)
 * is a whole value; one cut by max_tokens ("length") may not be.
 */
public final class TextGenerator {
  /** Qwen's {@code <|im_end|>} and {@code <|endoftext|>}: the generated test models' ends. */
  static final long[] QWEN_END_TOKENS = {151645, 151643};

  /** The finish reason of a generation whose consumer went away. */
  public static final String CANCELLED = "cancelled";

  private final QwenDecoder decoder;
  private final QwenTokenizer tokenizer;

  /** The ids that end a generation: the model folder's ({@code ModelVocabulary}). */
  private final long[] endTokens;

  /**
   * Whether the next step's JSON mask is computed during the step's forward pass (always, but in
   * {@link #withInlineMasksForTesting}, which measures what that hides).
   */
  private final boolean overlapMasks;

  /** Each id's text, decoded on the first constrained generation and kept. */
  private volatile TokenTexts texts;

  /**
   * A generator that stops on {@code endTokens}, the model folder's end-of-sequence ids ({@link
   * io.tensafe.node.model.ModelVocabulary#endTokens}).
   */
  public TextGenerator(QwenDecoder decoder, QwenTokenizer tokenizer, long[] endTokens) {
    this(decoder, tokenizer, endTokens, true);
  }

  private TextGenerator(
      QwenDecoder decoder, QwenTokenizer tokenizer, long[] endTokens, boolean overlapMasks) {
    if (endTokens.length == 0) {
      throw new IllegalArgumentException("a generator needs at least one end-of-sequence id");
    }
    this.decoder = decoder;
    this.tokenizer = tokenizer;
    this.endTokens = endTokens.clone();
    this.overlapMasks = overlapMasks;
  }

  /**
   * A generator that computes each JSON mask between steps, as before ADR 0037: the gap between a
   * private session's steps then holds the mask's work, which depends on the grammar state. For the
   * benchmark that measures the difference only.
   */
  public static TextGenerator withInlineMasksForTesting(
      QwenDecoder decoder, QwenTokenizer tokenizer, long[] endTokens) {
    return new TextGenerator(decoder, tokenizer, endTokens, false);
  }

  /** For tests on the generated Qwen models: Qwen's end tokens. */
  TextGenerator(QwenDecoder decoder, QwenTokenizer tokenizer) {
    this(decoder, tokenizer, QWEN_END_TOKENS);
  }

  private TokenTexts texts(int vocabularySize) {
    TokenTexts t = texts;
    if (t == null || t.size() != vocabularySize) {
      synchronized (this) {
        t = texts;
        if (t == null || t.size() != vocabularySize) {
          t = TokenTexts.of(tokenizer, vocabularySize);
          texts = t;
        }
      }
    }
    return t;
  }

  private boolean ends(int token) {
    for (long e : endTokens) {
      if (e == token) {
        return true;
      }
    }
    return false;
  }

  public Generation generate(
      String prompt, SamplingParameters parameters, Consumer<String> onText) {
    return generate(tokenizer.encode(prompt), parameters, onText);
  }

  /** As {@link #generate(String, SamplingParameters, Consumer)} for an already tokenized prompt. */
  public Generation generate(
      long[] promptIds, SamplingParameters parameters, Consumer<String> onText) {
    return generate(promptIds, parameters, null, d -> onText.accept(d.text()));
  }

  /**
   * Generates with an adapter's deltas at its target modules ({@code lora} null: the base model).
   * Each piece of text comes with the token counts it completes. {@code onText} may throw {@link
   * CancellationException} (the caller went away) to stop generation; the result then has finish
   * reason {@value #CANCELLED} and counts the tokens made.
   */
  public Generation generate(
      long[] promptIds,
      SamplingParameters parameters,
      AdapterDeltas lora,
      Consumer<TextDelta> onText) {
    return generate(promptIds, parameters, lora, onText, Integer.MAX_VALUE);
  }

  /**
   * As {@link #generate(long[], SamplingParameters, AdapterDeltas, Consumer)}, running the prompt
   * in steps of {@code prefillChunk} tokens (a private session's frames bound them) with a shorter
   * last step: a prompt that is a whole number of chunks ends with steps of {@code prefillChunk −
   * 1} and 1 tokens, so a short step always marks the prefill's end.
   *
   * @param prefillChunk ≥ 2
   */
  public Generation generate(
      long[] promptIds,
      SamplingParameters parameters,
      AdapterDeltas lora,
      Consumer<TextDelta> onText,
      int prefillChunk) {
    if (prefillChunk < 2) {
      throw new IllegalArgumentException("a prefill chunk has at least 2 tokens");
    }
    if (promptIds.length == 0) {
      throw new IllegalArgumentException("the prompt is empty");
    }
    Sampler sampler = new Sampler(parameters);
    List<Long> generated = new ArrayList<>();
    int emitted = 0;
    String finish = "length";
    String text = "";
    try (KvCache cache = decoder.newCache()) {
      float[] logits = null;
      for (int[] range : prefillSteps(promptIds.length, prefillChunk)) {
        logits =
            decoder.forward(
                java.util.Arrays.copyOfRange(promptIds, range[0], range[1]), cache, lora);
      }
      OutputPrefix json = parameters.format() == null ? null : parameters.format().start();
      TokenTexts pieces = json == null ? null : texts(logits.length);
      JsonTokenMask mask = json == null ? null : new JsonTokenMask(pieces, endTokens, json);
      int vocabulary = logits.length;
      // The next step's mask is computed while the step's forward pass runs (ADR 0037): in private
      // mode that pass is the exchange with the node, so the gap between one step's last frame and
      // the next one's first no longer holds the mask's work, which depends on the grammar state.
      java.util.concurrent.Future<int[]> pending =
          json == null
              ? null
              : java.util.concurrent.CompletableFuture.completedFuture(
                  allowedIds(mask, json, vocabulary));
      while (generated.size() < parameters.maxTokens()) {
        int next;
        if (json == null) {
          next = sampler.next(logits);
        } else {
          int[] allowed = overlapMasks ? join(pending) : allowedIds(mask, json, vocabulary);
          if (allowed.length == 0) {
            // Unreachable while every char is a token of its own: each prefix the grammar
            // accepts goes on by one char.
            finish = "stop";
            break;
          }
          next = sampler.next(logits, allowed, allowed.length);
          if (!ends(next)) {
            boolean fits = json.feed(pieces.text(next));
            assert fits : "a masked token left the grammar";
          }
        }
        generated.add((long) next);
        if (ends(next)) {
          finish = "stop";
          generated.removeLast();
          text = decode(generated);
          generated.add((long) next);
          break;
        }
        text = decode(generated);
        int stopAt = firstStop(text, parameters.stop());
        if (stopAt >= 0) {
          text = text.substring(0, stopAt);
          finish = "stop";
          break;
        }
        int endAt = parameters.endAfter() == null ? -1 : text.indexOf(parameters.endAfter());
        if (endAt >= 0) {
          text = text.substring(0, endAt + parameters.endAfter().length());
          finish = "stop";
          break;
        }
        int safe = text.length() - heldBack(text, parameters.stop());
        if (safe > emitted && !text.endsWith("\uFFFD")) {
          if (!deliver(onText, text.substring(emitted, safe), promptIds.length, generated.size())) {
            return new Generation(text, promptIds.length, generated.size(), CANCELLED);
          }
          emitted = safe;
        }
        if (generated.size() < parameters.maxTokens()) {
          if (json != null && overlapMasks) {
            OutputPrefix state = json;
            pending = MASKS.submit(() -> allowedIds(mask, state, vocabulary));
          }
          logits = decoder.forward(new long[] {next}, cache, lora);
        }
      }
    }
    if (text.length() > emitted
        && !deliver(onText, text.substring(emitted), promptIds.length, generated.size())) {
      return new Generation(text, promptIds.length, generated.size(), CANCELLED);
    }
    return new Generation(text, promptIds.length, generated.size(), finish);
  }

  /** Where masks are computed beside the forward pass: one virtual thread per step's mask. */
  private static final java.util.concurrent.ExecutorService MASKS =
      java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor();

  /** The ids {@code mask} allows after {@code json}, as a fresh array. */
  private static int[] allowedIds(JsonTokenMask mask, OutputPrefix json, int vocabulary) {
    int[] count = new int[1];
    int[] allowed = mask.allowed(json, vocabulary, count);
    return java.util.Arrays.copyOf(allowed, count[0]);
  }

  private static int[] join(java.util.concurrent.Future<int[]> pending) {
    try {
      return pending.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while masking", e);
    } catch (java.util.concurrent.ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r
          ? r
          : new IllegalStateException(e.getCause());
    }
  }

  /** [from, to) of each prefill step: whole chunks, then the rest (see the chunked generate). */
  public static List<int[]> prefillSteps(int tokens, int chunk) {
    List<int[]> steps = new ArrayList<>();
    for (int at = 0; at < tokens; at += chunk) {
      steps.add(new int[] {at, (int) Math.min(tokens, (long) at + chunk)});
    }
    return steps;
  }

  /** False when the consumer cancelled by throwing {@link CancellationException}. */
  private static boolean deliver(
      Consumer<TextDelta> onText, String piece, int promptTokens, int completionTokens) {
    try {
      onText.accept(new TextDelta(piece, promptTokens, completionTokens));
      return true;
    } catch (CancellationException e) {
      return false;
    }
  }

  private String decode(List<Long> ids) {
    return tokenizer.decode(ids.stream().mapToLong(Long::longValue).toArray());
  }

  private static int firstStop(String text, List<String> stops) {
    int first = -1;
    for (String stop : stops) {
      int at = text.indexOf(stop);
      if (at >= 0 && (first < 0 || at < first)) {
        first = at;
      }
    }
    return first;
  }

  /** Length of the longest suffix of {@code text} that is a proper prefix of a stop string. */
  private static int heldBack(String text, List<String> stops) {
    int hold = 0;
    for (String stop : stops) {
      for (int n = Math.min(stop.length() - 1, text.length()); n > hold; n--) {
        if (text.endsWith(stop.substring(0, n))) {
          hold = n;
          break;
        }
      }
    }
    return hold;
  }
}
