package io.tensafe.marketplace.adapter;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonRawValue;
import java.time.OffsetDateTime;

/**
 * An adapter version as its creator (and, published, the catalogue) shows it. Prices are
 * micro-units per 1000 tokens: the price in force now, and the next scheduled one, if any, with the
 * instant it takes effect (a rise is announced at least the notice period ahead). {@code
 * newestFrom} is when it serves (or began to serve) requests naming its adapter without a version,
 * and {@code auto}, as its newest version: a version priced above the one it replaces is announced
 * the same notice period ahead (ADR 0009); null for one never published.
 *
 * <p>{@code dpPolicy} and {@code measuredEffect} are the signed manifest's {@code dp_policy} and
 * {@code measured_effect} as they are (ADR 0035): what the buyer keeps of the adapter under its
 * policy, measured by the creator's {@code tgsp pack} on the weights, which the marketplace cannot
 * read; {@code measuredEffect} is null for a package packed without {@code --model-dir}.
 *
 * <p>{@code privateMode} is the creator's private-mode offer for the version (issue 49): {@code
 * {offered, tokensPerPeriod, periodDays}}, the quota per client organisation, as {@link
 * io.tensafe.marketplace.adapter.PrivateModeView}; a new upload is not offered.
 */
public record VersionView(
    String adapterId,
    String version,
    String state,
    String baseModel,
    int rank,
    String domain,
    String currency,
    long promptMicrosPer1kTokens,
    long completionMicrosPer1kTokens,
    String packageSha256,
    long packageBytes,
    OffsetDateTime uploadedAt,
    Long nextPromptMicrosPer1kTokens,
    Long nextCompletionMicrosPer1kTokens,
    OffsetDateTime nextPriceFrom,
    OffsetDateTime newestFrom,
    @JsonRawValue String dpPolicy,
    @JsonRawValue String measuredEffect,
    @JsonRawValue
        @org.eclipse.microprofile.openapi.annotations.media.Schema(
            implementation = io.tensafe.marketplace.adapter.PrivateModeView.class)
        String privateMode) {

  /** {@code privateMode} of a version without an offer. */
  static final String NOT_OFFERED =
      "{\"offered\":false,\"tokensPerPeriod\":null,\"periodDays\":null}";

  /** Who measured {@code measuredEffect}: never the marketplace. */
  @JsonProperty("measuredEffectSource")
  public String measuredEffectSource() {
    return measuredEffect == null
        ? null
        : "signed by the creator's tgsp pack on the weights; the marketplace cannot read the"
            + " weights and shows the figures as signed";
  }
}
