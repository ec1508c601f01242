package io.tensafe.marketplace.privatemode;

import io.tensafe.marketplace.problem.ProblemTypes;
import java.util.Base64;
import java.util.List;

/**
 * A session request's bounds once checked: what the client may generate and prompt with, within
 * {@link PrivateSessionRequest}'s limits; the public keys were checked to be base64 within theirs.
 *
 * @param maxTokens in [1, {@link PrivateSessionRequest#MAX_TOKENS}]
 * @param maxPromptTokens in [1, 65535]
 */
record SessionBounds(int maxTokens, int maxPromptTokens) {
  /**
   * Checks {@code r}.
   *
   * @throws io.tensafe.marketplace.problem.ApiProblem 400 naming the field at fault
   */
  static SessionBounds of(PrivateSessionRequest r) {
    if (r == null) {
      throw ProblemTypes.validation("a JSON body is required");
    }
    if (r.model() == null || r.model().isBlank()) {
      throw ProblemTypes.validation("model is required").withParam("model");
    }
    if (r.model().equals("auto")) {
      throw ProblemTypes.validation(
              "model auto is not available in private mode: a private session names its adapter,"
                  + " and which adapter auto would pick depends on the prompt's words, which the"
                  + " opening would then show (ADR 0037); name an adapter (id or id@version)")
          .withParam("model");
    }
    int maxTokens = r.maxTokens() == null ? 256 : r.maxTokens();
    if (maxTokens < 1 || maxTokens > PrivateSessionRequest.MAX_TOKENS) {
      throw ProblemTypes.validation(
              "max_tokens must be in [1, " + PrivateSessionRequest.MAX_TOKENS + "]")
          .withParam("max_tokens");
    }
    int maxPrompt =
        r.maxPromptTokens() == null
            ? PrivateSessionRequest.DEFAULT_MAX_PROMPT_TOKENS
            : r.maxPromptTokens();
    if (maxPrompt < 1 || maxPrompt > 0xFFFF) {
      throw ProblemTypes.validation("max_prompt_tokens must be in [1, 65535]")
          .withParam("max_prompt_tokens");
    }
    List<String> keys = r.publicKeys();
    if (keys == null
        || keys.isEmpty()
        || keys.size() > PrivateSessionRequest.MAX_PUBLIC_KEYS
        || keys.stream().mapToLong(k -> k == null ? 0 : k.length()).sum()
            > PrivateSessionRequest.MAX_PUBLIC_KEY_CHARS) {
      throw ProblemTypes.validation(
              "public_keys is required: 1 to "
                  + PrivateSessionRequest.MAX_PUBLIC_KEYS
                  + " keys, at most "
                  + PrivateSessionRequest.MAX_PUBLIC_KEY_CHARS
                  + " base64 characters in all")
          .withParam("public_keys");
    }
    try {
      for (String k : keys) {
        if (k == null || k.isEmpty()) {
          throw new IllegalArgumentException("empty");
        }
        Base64.getDecoder().decode(k);
      }
    } catch (IllegalArgumentException e) {
      throw ProblemTypes.validation("public_keys must be base64").withParam("public_keys");
    }
    String wrap = r.frameKeyWrap();
    if (wrap == null
        || wrap.isEmpty()
        || wrap.length() > PrivateSessionRequest.MAX_FRAME_KEY_WRAP_CHARS) {
      throw ProblemTypes.validation(
              "frame_key_wrap is required: the frame keys wrapped to the fleets the client trusts"
                  + " (GET /v1/private/fleets), at most "
                  + PrivateSessionRequest.MAX_FRAME_KEY_WRAP_CHARS
                  + " base64 characters")
          .withParam("frame_key_wrap");
    }
    try {
      Base64.getDecoder().decode(wrap);
    } catch (IllegalArgumentException e) {
      throw ProblemTypes.validation("frame_key_wrap must be base64").withParam("frame_key_wrap");
    }
    return new SessionBounds(maxTokens, maxPrompt);
  }
}
