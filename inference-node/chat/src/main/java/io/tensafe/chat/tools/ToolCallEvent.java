package io.tensafe.chat.tools;

/** What a model's output turns into when the request offered tools. */
public sealed interface ToolCallEvent {
  /** Text for the answer's {@code content}. */
  record Content(String text) implements ToolCallEvent {}

  /**
   * A complete tool call.
   *
   * @param index the call's position in the answer, from 0
   * @param id the call's id (the caller's prefix and the index), unique within the answer
   * @param name the function's name, as the model wrote it
   * @param arguments the arguments as a JSON text (OpenAI's {@code function.arguments})
   */
  record Call(int index, String id, String name, String arguments) implements ToolCallEvent {}
}
