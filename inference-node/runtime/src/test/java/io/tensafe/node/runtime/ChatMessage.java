package io.tensafe.node.runtime;

/**
 * One chat message.
 *
 * @param role "system", "user" or "assistant"
 */
public record ChatMessage(String role, String content) {
  public ChatMessage {
    if (!role.equals("system") && !role.equals("user") && !role.equals("assistant")) {
      throw new IllegalArgumentException("role must be system, user or assistant, was " + role);
    }
  }

  /**
   * Qwen's ChatML rendering of {@code messages} followed by the opening of the assistant's turn:
   * {@code <|im_start|>role\ncontent<|im_end|>\n} per message. This is what Qwen's chat template
   * produces for plain messages (no tools, no reasoning blocks).
   */
  public static String chatMl(java.util.List<ChatMessage> messages) {
    StringBuilder out = new StringBuilder();
    for (ChatMessage m : messages) {
      out.append("<|im_start|>").append(m.role()).append('\n').append(m.content());
      out.append("<|im_end|>\n");
    }
    return out.append("<|im_start|>assistant\n").toString();
  }
}
