package io.tensafe.marketplace.autocap;

import io.tensafe.marketplace.apikey.PriceCap;
import java.time.OffsetDateTime;

/**
 * An organisation's ceiling for {@code auto}, as its pages and {@code /v1/models} show it.
 *
 * @param cap the most {@code auto} routes to, per 1k prompt and completion tokens
 * @param source {@code organisation} when one of its owners set it, {@code platform} for the
 *     platform's default
 * @param setAt when an owner set it; null for the platform's default
 */
public record AutoCapView(PriceCap cap, String source, OffsetDateTime setAt) {}
