package io.tensafe.tgsp.routing;

import java.util.ArrayList;
import java.util.List;

/**
 * What the step-gate reads of a chat, in order (ADR 0009): the latest user message, earlier user
 * messages from the latest back, then system messages. The marketplace and a private-mode client
 * (ADR 0017) build it here, so both route one conversation alike.
 */
public final class ConversationTexts {
  private ConversationTexts() {}

  /** A chat message: its role ({@code user}, {@code system}, ...) and text. */
  public record Message(String role, String content) {}

  /** The routed texts of {@code messages} (roles other than user and system are not read). */
  public static List<RoutedText> of(List<Message> messages) {
    List<String> user = new ArrayList<>();
    List<String> system = new ArrayList<>();
    for (Message m : messages) {
      if (m.role().equals("user")) {
        user.add(m.content());
      } else if (m.role().equals("system")) {
        system.add(m.content());
      }
    }
    List<RoutedText> routing = new ArrayList<>();
    for (int back = 0; back < user.size(); back++) {
      routing.add(
          new RoutedText(
              back == 0
                  ? "the latest user message"
                  : "the user message " + back + " before the latest",
              user.get(user.size() - 1 - back)));
    }
    for (String s : system) {
      routing.add(new RoutedText("a system message", s));
    }
    return List.copyOf(routing);
  }
}
