package io.tensafe.marketplace.billing;

import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * A metered request to bill, as the API that served it reports it.
 *
 * @param requestId the idempotency key, 1 to 128 characters; a replay with the same usage returns
 *     the first charge, a different usage under the same id is refused
 * @param clientOrganisationId the paying organisation
 * @param apiKeyId the key used, or null
 * @param adapterRef the adapter's public id
 * @param version its version
 * @param promptTokens ≥ 0
 * @param completionTokens ≥ 0
 * @param startedAt when the request started: the price in force then applies
 * @param routeReason the step-gate's explanation for {@code auto}, or null
 */
public record NewCharge(
    String requestId,
    UUID clientOrganisationId,
    UUID apiKeyId,
    String adapterRef,
    String version,
    long promptTokens,
    long completionTokens,
    OffsetDateTime startedAt,
    String routeReason) {}
