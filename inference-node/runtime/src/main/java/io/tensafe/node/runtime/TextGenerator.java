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
 *
 * <p>With {@link SamplingParameters#logprobs} ≥ 0, each generated token but the end-of-sequence one
 * gets a {@link TokenLogprob}: the model's log-probability of it and of the step's most likely
 * tokens, from the raw logits of the step that drew it, before temperature, top-k, top-p and any
 * format's mask ({@link LogProbabilities}; so a constrained or tempered draw may pick a token
 * outside the top ones). Each streamed piece carries the entries of the tokens its text starts.
 * Several choices of one prompt share its prefill ({@link #generateChoices}).
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
    return run(promptIds, parameters, 1, lora, onText, prefillChunk).getFirst();
  }

  /**
   * {@code choices} generations of one prompt (OpenAI's {@code n}), one after another, sharing one
   * prefill: the prompt runs once, and each choice decodes from its own copy of the prompt's cache
   * ({@link KvCache#fork}), with its own sampler seed ({@link #choiceSeed}; choice 0 keeps the
   * request's, so {@code choices} 1 is {@link #generate(long[], SamplingParameters, AdapterDeltas,
   * Consumer)}). Each piece says its choice ({@link TextDelta#index}); a choice's pieces all come
   * before the next choice's. A consumer that cancels ends the current choice as {@value
   * #CANCELLED} and runs no further one; the result then holds the choices run so far.
   *
   * @param choices 1 to {@link #MAX_CHOICES}
   * @return each choice's generation, in order; each counts the prompt's tokens (run once)
   */
  public List<Generation> generateChoices(
      long[] promptIds,
      SamplingParameters parameters,
      int choices,
      AdapterDeltas lora,
      Consumer<TextDelta> onText) {
    if (choices < 1 || choices > MAX_CHOICES) {
      throw new IllegalArgumentException(
          "choices must be in [1, " + MAX_CHOICES + "], was " + choices);
    }
    return run(promptIds, parameters, choices, lora, onText, Integer.MAX_VALUE);
  }

  /** The most choices one request may ask for (OpenAI's {@code n}): 8 (ADR 0044). */
  public static final int MAX_CHOICES = 8;

  /**
   * The sampler seed of choice {@code index} of a request seeded {@code seed}: the seed itself for
   * choice 0, else a 64-bit mix of the seed and the index, so choices draw unrelated streams and a
   * seeded request repeats choice by choice.
   */
  static long choiceSeed(long seed, int index) {
    return index == 0
        ? seed
        : new java.util.SplittableRandom(seed ^ (0x9E3779B97F4A7C15L * index)).nextLong();
  }

  private List<Generation> run(
      long[] promptIds,
      SamplingParameters parameters,
      int choices,
      AdapterDeltas lora,
      Consumer<TextDelta> onText,
      int prefillChunk) {
    if (prefillChunk < 2) {
      throw new IllegalArgumentException("a prefill chunk has at least 2 tokens");
    }
    if (promptIds.length == 0) {
      throw new IllegalArgumentException("the prompt is empty");
    }
    List<Generation> out = new ArrayList<>(choices);
    try (KvCache cache = decoder.newCache()) {
      float[] logits = null;
      for (int[] range : prefillSteps(promptIds.length, prefillChunk)) {
        logits =
            decoder.forward(
                java.util.Arrays.copyOfRange(promptIds, range[0], range[1]), cache, lora);
      }
      for (int index = 0; index < choices; index++) {
        SamplingParameters own = parameters.withSeed(choiceSeed(parameters.seed(), index));
        Generation g;
        if (index == choices - 1) {
          g = decode(promptIds.length, index, own, cache, logits, lora, onText);
        } else {
          try (KvCache copy = cache.fork()) {
            g = decode(promptIds.length, index, own, copy, logits, lora, onText);
          }
        }
        out.add(g);
        if (g.finishReason().equals(CANCELLED)) {
          break;
        }
      }
    }
    return out;
  }

  /**
   * One choice's decoding from a prefilled {@code cache} whose last step gave {@code logits} (read,
   * never written).
   */
  private Generation decode(
      int promptTokens,
      int index,
      SamplingParameters parameters,
      KvCache cache,
      float[] logits,
      AdapterDeltas lora,
      Consumer<TextDelta> onText) {
    Sampler sampler = new Sampler(parameters);
    LogprobTrail trail =
        parameters.logprobs() < 0
            ? null
            : new LogprobTrail(parameters.logprobs(), ids -> tokenizer.decodeEach(ids, false));
    Emitter emit = new Emitter(index, promptTokens, trail, onText);
    List<Long> generated = new ArrayList<>();
    int emitted = 0;
    String finish = "length";
    String text = "";
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
      if (trail != null) {
        trail.add(logits, next, text);
      }
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
        if (!emit.piece(text.substring(emitted, safe), safe, generated.size())) {
          return emit.generation(text, generated.size(), CANCELLED);
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
    if (text.length() > emitted
        && !emit.piece(text.substring(emitted), text.length(), generated.size())) {
      return emit.generation(text, generated.size(), CANCELLED);
    }
    return emit.generation(text, generated.size(), finish);
  }

  /**
   * Passes one choice's pieces on, each with the log-probability entries of the tokens its text
   * starts ({@link LogprobTrail}), and makes its result.
   */
  private record Emitter(
      int index, int promptTokens, LogprobTrail trail, Consumer<TextDelta> onText) {
    /**
     * Passes {@code piece}, which ends at {@code end} in the text; false when the consumer
     * cancelled by throwing {@link CancellationException}.
     */
    boolean piece(String piece, int end, int completionTokens) {
      List<TokenLogprob> entries = trail == null ? List.of() : trail.upTo(end);
      try {
        onText.accept(new TextDelta(index, piece, promptTokens, completionTokens, entries));
        return true;
      } catch (CancellationException e) {
        return false;
      }
    }

    Generation generation(String text, int completionTokens, String finish) {
      return new Generation(
          text, promptTokens, completionTokens, finish, trail == null ? null : trail.delivered());
    }
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
