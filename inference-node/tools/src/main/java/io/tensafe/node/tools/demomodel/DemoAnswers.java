package io.tensafe.node.tools.demomodel;

import io.tensafe.chat.template.ChatFormat;
import io.tensafe.chat.template.ChatTemplateException;
import io.tensafe.node.adapter.AdapterRejectedException;
import io.tensafe.node.adapter.PeftAdapters;
import io.tensafe.node.model.ModelFolder;
import io.tensafe.node.runtime.AdapterDeltas;
import io.tensafe.node.runtime.KvCache;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.node.runtime.Sampler;
import io.tensafe.node.tokenizer.QwenTokenizer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Greedy answers of a demo model folder to one user message, with or without its demo adapter,
 * through the node's own decoder, tokenizer and chat template. Close it to free the weights.
 */
public final class DemoAnswers implements AutoCloseable {
  private static final long IM_END = 151_645;
  private static final long END_OF_TEXT = 151_643;

  private final QwenDecoder decoder;
  private final QwenTokenizer tokenizer;
  private final ChatExamples chat;
  private final LoraAdapter adapter;

  private DemoAnswers(
      QwenDecoder decoder, QwenTokenizer tokenizer, ChatExamples chat, LoraAdapter adapter) {
    this.decoder = decoder;
    this.tokenizer = tokenizer;
    this.chat = chat;
    this.adapter = adapter;
  }

  /** The folder {@code dir} and its {@code demo-adapter}, both checked as the node checks them. */
  public static DemoAnswers load(Path dir) throws IOException {
    QwenTokenizer tokenizer = QwenTokenizer.fromFile(dir.resolve("tokenizer.json"));
    QwenDecoder decoder = null;
    try {
      decoder = new QwenDecoder(ModelFolder.load(dir));
      LoraAdapter adapter =
          PeftAdapters.read(dir.resolve(DemoModel.ADAPTER_FOLDER), decoder.adapterShape());
      return new DemoAnswers(
          decoder, tokenizer, new ChatExamples(ChatFormat.read(dir), tokenizer), adapter);
    } catch (AdapterRejectedException | ChatTemplateException | RuntimeException e) {
      tokenizer.close();
      if (decoder != null) {
        decoder.close();
      }
      throw new IOException(dir + ": " + e.getMessage(), e);
    }
  }

  public QwenDecoder decoder() {
    return decoder;
  }

  /** The trained demo adapter. */
  public LoraAdapter adapter() {
    return adapter;
  }

  /**
   * The greedy answer's token ids to {@code user}, at most {@code maxTokens}, ending before {@code
   * <|im_end|>}; {@code lora} null for the base model.
   */
  public long[] greedy(String user, AdapterDeltas lora, int maxTokens) {
    long[] prompt;
    try {
      prompt = tokenizer.encode(chat.prompt(user));
    } catch (ChatTemplateException e) {
      throw new IllegalStateException("the chat template refused one user message", e);
    }
    long[] out = new long[maxTokens];
    int n = 0;
    try (KvCache cache = decoder.newCache()) {
      float[] logits = decoder.forward(prompt, cache, lora);
      while (n < maxTokens) {
        long next = Sampler.argmax(logits);
        if (next == IM_END || next == END_OF_TEXT) {
          break;
        }
        out[n++] = next;
        if (n < maxTokens) {
          logits = decoder.forward(new long[] {next}, cache, lora);
        }
      }
    }
    return Arrays.copyOf(out, n);
  }

  public String text(long[] ids) {
    return tokenizer.decode(ids);
  }

  @Override
  public void close() {
    decoder.close();
    tokenizer.close();
  }
}
