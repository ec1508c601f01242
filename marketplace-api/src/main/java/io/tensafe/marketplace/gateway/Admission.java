package io.tensafe.marketplace.gateway;

import io.tensafe.marketplace.problem.ProblemTypes;

/**
 * What the gateway admits a request for, whatever its protocol: the version it runs on, why it was
 * routed there, its mode, the most it may bill and release.
 *
 * @param routeReason the step-gate's reason for {@code auto}, null for a named model
 * @param limits the prompt tokens reserved for (for a hosted request the marketplace's own count of
 *     its prompt, which the node is told as {@code max_prompt_tokens}), the client's {@code
 *     max_tokens}, and the prompt tokens counted (-1 for a private session, whose prompt the
 *     marketplace cannot read)
 * @param releasesPerToken DP releases per token run: the version's noised inputs for a hosted
 *     request, its noised sites for a private session; ≥ 0
 */
public record Admission(
    ServedVersion version,
    String routeReason,
    RequestMode mode,
    GatewayRequests.Limits limits,
    int releasesPerToken) {

  /**
   * The most DP releases the request can make, which the admission reserves: (prompt tokens +
   * {@code maxCompletionTokens}, which is {@code n × max_tokens}) × releases per token (a node runs
   * the prompt once for all its choices and feeds back every generated token but each choice's
   * last, and stops each choice at {@code max_tokens}); at least 1.
   *
   * @throws io.tensafe.marketplace.problem.ApiProblem 400 when that overflows
   */
  public long releases() {
    try {
      return Math.max(
          1,
          Math.multiplyExact(
              limits.maxPromptTokens() + limits.maxCompletionTokens(), (long) releasesPerToken));
    } catch (ArithmeticException e) {
      throw ProblemTypes.validation("the prompt is too long");
    }
  }

  /** The payer and limits of this request as {@code gateway_request} records them. */
  public GatewayRequests.Context context(
      io.tensafe.marketplace.apikey.ApiKeyPrincipal key, java.time.OffsetDateTime started) {
    return new GatewayRequests.Context(
        key.organisationId(),
        key.keyId(),
        version.adapterId(),
        version.version(),
        routeReason,
        started,
        false,
        limits);
  }

  /**
   * Whether a node that received the request may have released the client's data before it
   * answered: a hosted request carries its prompt; a private session's open carries only public
   * keys (its inputs come later, frame by frame).
   */
  public boolean inputsAtOpen() {
    return mode == RequestMode.HOSTED;
  }
}
