package io.tensafe.marketplace.privatemode;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The answer to {@code DELETE /v1/private/sessions/{id}}: what the session was billed, counted by
 * the marketplace from the frames it relayed.
 */
public record SessionBillView(String id, String object, Usage usage, Billing tensafe) {
  /** OpenAI-style token counts. */
  public record Usage(
      @JsonProperty("prompt_tokens") int promptTokens,
      @JsonProperty("completion_tokens") long completionTokens,
      @JsonProperty("total_tokens") long totalTokens) {}

  /**
   * The charge and the budget.
   *
   * @param currency null when nothing was billed
   * @param epsilonSpent the adapter budget's ε spent after settling; null if already settled
   */
  public record Billing(
      String mode,
      String currency,
      @JsonProperty("amount_micros") long amountMicros,
      @JsonProperty("epsilon_spent") Double epsilonSpent) {}

  static SessionBillView of(String id, SessionBill bill) {
    return new SessionBillView(
        id,
        "tensafe.private_session.bill",
        new Usage(
            bill.promptTokens(),
            bill.completionTokens(),
            bill.promptTokens() + bill.completionTokens()),
        new Billing(
            "private",
            bill.currency(),
            bill.amountMicros(),
            bill.epsilonSpent() < 0 ? null : bill.epsilonSpent()));
  }
}
