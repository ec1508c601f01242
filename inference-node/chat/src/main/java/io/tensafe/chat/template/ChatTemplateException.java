package io.tensafe.chat.template;

/**
 * A chat template that cannot be compiled or rendered. The message names the construct and the
 * template line (1-based) where known, so an operator can see which part of a model folder's
 * template is outside the subset this renderer implements.
 */
public final class ChatTemplateException extends Exception {
  /** Why the template failed. */
  public enum Reason {
    /** A Jinja construct this renderer does not implement (a tag, filter, test, method or call). */
    UNSUPPORTED,
    /** Text that is not a well-formed template. */
    SYNTAX,
    /** A {@code tokenizer_config.json} with no chat template: the model runs prompts only. */
    MISSING,
    /** Rendering failed: a type error, an undefined value used, or the template's own error. */
    RENDER
  }

  private final Reason reason;

  public ChatTemplateException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
