package io.tensafe.chat.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The {@code messages} of a chat request, checked and normalised to what the node's chat template
 * reads: each message becomes {@code {"role", "content"}} with text content, plus an assistant's
 * {@code tool_calls} and a tool result's {@code tool_call_id}.
 *
 * <ul>
 *   <li>Roles: {@code system}, {@code developer} (newer SDKs' name for system; run as system),
 *       {@code user}, {@code assistant}, {@code tool} (a tool's result: {@code tool_call_id} and
 *       text content). The legacy {@code function} role is refused by name.
 *   <li>An assistant message may carry {@code tool_calls} (OpenAI's {@code [{"id", "type":
 *       "function", "function": {"name", "arguments"}}]}, arguments a JSON text); its content may
 *       then be null or absent.
 *   <li>Content: a string, or an array of parts as newer SDKs and LangChain-style clients send
 *       ({@code [{"type": "text", "text": ...}]}). Text parts are joined with a newline; any other
 *       part type ({@code image_url}, {@code input_audio}, {@code file}, ...) is refused by name.
 *   <li>Message fields besides these: {@code name} (and an assistant's {@code refusal: null}) is
 *       accepted and not used (clients send it); any other is refused by name.
 * </ul>
 *
 * @param normalised the messages as forwarded to the node
 * @param turns each message's role and text content, in order (what the step-gate reads, ADR 0009)
 */
public record ChatMessages(ArrayNode normalised, List<Turn> turns) {
  /** A message's role ({@code system} for developer) and its text content. */
  public record Turn(String role, String content) {}

  /** Messages a request may carry. */
  public static final int MAX_MESSAGES = 256;

  private static final Set<String> ROLES =
      Set.of("system", "developer", "user", "assistant", "tool");
  private static final Set<String> MESSAGE_FIELDS = Set.of("role", "content", "name");
  private static final Set<String> ASSISTANT_FIELDS =
      Set.of("role", "content", "name", "tool_calls", "refusal");
  private static final Set<String> TOOL_FIELDS = Set.of("role", "content", "tool_call_id", "name");

  /** Checks and normalises {@code messages}; throws naming the field at fault. */
  public static ChatMessages parse(JsonNode messages) throws InvalidRequestException {
    if (messages == null
        || !messages.isArray()
        || messages.isEmpty()
        || messages.size() > MAX_MESSAGES) {
      throw new InvalidRequestException(
          "messages", "messages must be an array of 1 to " + MAX_MESSAGES + " messages");
    }
    ArrayNode normalised = JsonNodeFactory.instance.arrayNode();
    List<Turn> read = new ArrayList<>();
    for (int i = 0; i < messages.size(); i++) {
      JsonNode m = messages.get(i);
      String at = "messages[" + i + "]";
      if (!m.isObject()) {
        throw new InvalidRequestException(at, at + " must be an object with a role and content");
      }
      JsonNode roleNode = m.get("role");
      if (roleNode == null || !roleNode.isTextual() || !ROLES.contains(roleNode.asText())) {
        throw new InvalidRequestException(
            at + ".role",
            at
                + ".role must be system, developer, user, assistant or tool"
                + (roleNode != null && roleNode.isTextual()
                    ? "; '" + roleNode.asText() + "' is not supported"
                    : ""));
      }
      String role = roleNode.asText().equals("developer") ? "system" : roleNode.asText();
      Set<String> fields =
          switch (role) {
            case "assistant" -> ASSISTANT_FIELDS;
            case "tool" -> TOOL_FIELDS;
            default -> MESSAGE_FIELDS;
          };
      for (Iterator<String> names = m.fieldNames(); names.hasNext(); ) {
        String name = names.next();
        if (!fields.contains(name)) {
          throw new InvalidRequestException(
              at + "." + name, "unsupported message field '" + name + "' in " + at);
        }
      }
      if (m.hasNonNull("refusal")) {
        throw new InvalidRequestException(at + ".refusal", at + ".refusal must be null");
      }
      boolean calls = m.hasNonNull("tool_calls");
      JsonNode contentNode = m.get("content");
      String content =
          calls && (contentNode == null || contentNode.isNull())
              ? ""
              : content(contentNode, at + ".content");
      ObjectNode out = normalised.addObject().put("role", role).put("content", content);
      if (calls) {
        out.set("tool_calls", ToolCallMessages.calls(m.get("tool_calls"), at + ".tool_calls"));
      }
      if (role.equals("tool")) {
        if (!m.path("tool_call_id").isTextual()) {
          throw new InvalidRequestException(
              at + ".tool_call_id",
              at + ".tool_call_id must be the string id of the call answered");
        }
        out.put("tool_call_id", m.get("tool_call_id").asText());
      }
      read.add(new Turn(role, content));
    }
    return new ChatMessages(normalised, List.copyOf(read));
  }

  private static String content(JsonNode content, String at) throws InvalidRequestException {
    if (content != null && content.isTextual()) {
      return content.asText();
    }
    if (content == null || !content.isArray() || content.isEmpty()) {
      throw new InvalidRequestException(
          at, at + " must be a string or a non-empty array of text parts");
    }
    StringBuilder text = new StringBuilder();
    for (int j = 0; j < content.size(); j++) {
      JsonNode part = content.get(j);
      String partAt = at + "[" + j + "]";
      String type = part.path("type").isTextual() ? part.get("type").asText() : null;
      if (type == null) {
        throw new InvalidRequestException(
            partAt + ".type", partAt + " must be an object with a type (\"text\")");
      }
      if (!type.equals("text")) {
        throw new InvalidRequestException(
            partAt + ".type",
            "content part type '"
                + type
                + "' ("
                + partAt
                + ") is not supported; this API accepts text parts only");
      }
      if (!part.path("text").isTextual()) {
        throw new InvalidRequestException(partAt + ".text", partAt + ".text must be a string");
      }
      if (j > 0) {
        text.append('\n');
      }
      text.append(part.get("text").asText());
    }
    return text.toString();
  }
}
