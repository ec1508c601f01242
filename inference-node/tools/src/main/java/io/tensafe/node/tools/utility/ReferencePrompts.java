package io.tensafe.node.tools.utility;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.tensafe.chat.template.ChatFormat;
import io.tensafe.chat.template.ChatTemplateException;
import io.tensafe.node.tokenizer.QwenTokenizer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The prompts an effect is measured on: the creator's own, or these reference prompts (the demo
 * adapter's banking questions), rendered as one user turn by the model folder's chat template and
 * tokenized by its tokenizer, as the node renders a chat request.
 */
public final class ReferencePrompts {
  /** The reference user messages: eight banking questions. */
  public static final List<String> BANKING =
      List.of(
          "How do I apply for a mortgage?",
          "How can I open a savings account?",
          "What is the interest rate on a personal loan?",
          "Can I close my fixed deposit early?",
          "What do I need for a car loan?",
          "Are there fees on a checking account?",
          "How much interest does a savings account pay?",
          "I want to borrow money to buy a house.");

  private static final ObjectMapper JSON = new ObjectMapper();

  private ReferencePrompts() {}

  /** Each message as the token ids of the prompt the node would run for it. */
  public static List<long[]> render(Path modelDir, List<String> messages) throws IOException {
    try (QwenTokenizer tokenizer = QwenTokenizer.fromFile(modelDir.resolve("tokenizer.json"))) {
      ChatFormat format = ChatFormat.read(modelDir);
      List<long[]> out = new ArrayList<>();
      for (String message : messages) {
        ArrayNode turns = JSON.createArrayNode();
        turns.addObject().put("role", "user").put("content", message);
        out.add(tokenizer.encode(format.prompt(turns, null)));
      }
      return out;
    } catch (ChatTemplateException e) {
      throw new IOException(
          modelDir + ": the chat template refused a prompt: " + e.getMessage(), e);
    }
  }
}
