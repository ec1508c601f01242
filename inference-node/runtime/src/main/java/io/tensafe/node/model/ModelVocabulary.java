package io.tensafe.node.model;

import io.tensafe.chat.template.ChatFormat;
import io.tensafe.chat.template.ChatTemplateException;
import io.tensafe.tgsp.json.JsonLimits;
import io.tensafe.tgsp.json.JsonParser;
import io.tensafe.tgsp.json.JsonSchemaException;
import io.tensafe.tgsp.json.JsonSyntaxException;
import io.tensafe.tgsp.json.JsonValue;
import io.tensafe.tgsp.json.ObjectReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What a model folder says about its text, as its authors meant it (issue 36): the tokenizer is the
 * folder's own {@code tokenizer.json}, and generation ends on the folder's end-of-sequence ids,
 * {@code eos_token_id} of {@code generation_config.json} (a number or a list), else of {@code
 * config.json}. Qwen2.5 and Qwen3 folders differ in these files; nothing here assumes either. A
 * folder that lacks them is refused by name, never served with another model's vocabulary. Chat
 * messages are rendered with the folder's chat template ({@code tokenizer_config.json}); a template
 * outside the renderer's subset makes the folder fail to load, naming the construct.
 *
 * @param tokenizerJson the folder's {@code tokenizer.json}, at most {@link #MAX_TOKENIZER_BYTES}
 * @param endTokens the ids that end a generation, 1..16 of them, each in [0, 2^31)
 * @param chat the folder's chat format, or null when it has no {@code tokenizer_config.json} or no
 *     template in it (then it runs prompts only)
 */
public record ModelVocabulary(Path tokenizerJson, long[] endTokens, ChatFormat chat) {
  /** The largest {@code tokenizer.json} read: 64 MiB (Qwen's is about 7 MiB). */
  public static final long MAX_TOKENIZER_BYTES = 64L << 20;

  /** The largest {@code generation_config.json} read: 1 MiB. */
  static final int MAX_CONFIG_BYTES = 1 << 20;

  public ModelVocabulary {
    endTokens = endTokens.clone();
  }

  @Override
  public long[] endTokens() {
    return endTokens.clone();
  }

  /**
   * Reads {@code dir}'s vocabulary files.
   *
   * @throws IOException naming the file that is missing, too large or malformed
   */
  public static ModelVocabulary read(Path dir) throws IOException {
    Path tokenizer = dir.resolve("tokenizer.json");
    if (!Files.isRegularFile(tokenizer)) {
      throw new IOException(
          tokenizer + " is missing: a model folder carries its own tokenizer (tokenizer.json)");
    }
    if (Files.size(tokenizer) > MAX_TOKENIZER_BYTES) {
      throw new IOException(tokenizer + " is larger than 64 MiB");
    }
    List<Long> ends = eosIds(dir.resolve("generation_config.json"));
    if (ends.isEmpty()) {
      ends = eosIds(dir.resolve("config.json"));
    }
    if (ends.isEmpty()) {
      throw new IOException(
          dir
              + " names no end-of-sequence token: eos_token_id in generation_config.json or"
              + " config.json");
    }
    return new ModelVocabulary(
        tokenizer, ends.stream().mapToLong(Long::longValue).toArray(), chatFormat(dir));
  }

  /** The folder's chat format; null without {@code tokenizer_config.json} or a template in it. */
  private static ChatFormat chatFormat(Path dir) throws IOException {
    Path config = dir.resolve("tokenizer_config.json");
    if (!Files.isRegularFile(config)) {
      return null;
    }
    try {
      return ChatFormat.read(dir);
    } catch (ChatTemplateException e) {
      if (e.reason() == ChatTemplateException.Reason.MISSING) {
        return null;
      }
      throw new IOException(config + ": " + e.getMessage(), e);
    }
  }

  /** The {@code eos_token_id} of {@code file}, a number or a list of up to 16; empty if absent. */
  private static List<Long> eosIds(Path file) throws IOException {
    if (!Files.isRegularFile(file)) {
      return List.of();
    }
    if (Files.size(file) > MAX_CONFIG_BYTES) {
      throw new IOException(file + " is larger than 1 MiB");
    }
    String name = file.getFileName().toString();
    try {
      ObjectReader r =
          new ObjectReader(
              name, JsonParser.parse(name, Files.readAllBytes(file), JsonLimits.document()));
      if (!r.has("eos_token_id")) {
        return List.of();
      }
      List<Long> ids = new ArrayList<>();
      JsonValue v = r.value("eos_token_id");
      if (v instanceof JsonValue.JsonNull) {
        return List.of();
      } else if (v instanceof JsonValue.JsonNumber n) {
        ids.add(ObjectReader.integerIn("eos_token_id", n.value(), 0, Integer.MAX_VALUE));
      } else {
        for (JsonValue item : r.array("eos_token_id", 16)) {
          if (!(item instanceof JsonValue.JsonNumber n)) {
            throw new IOException(name + ": eos_token_id holds a non-number");
          }
          ids.add(ObjectReader.integerIn("eos_token_id", n.value(), 0, Integer.MAX_VALUE));
        }
      }
      return ids;
    } catch (JsonSyntaxException | JsonSchemaException e) {
      throw new IOException(name + ": " + e.getMessage(), e);
    }
  }
}
