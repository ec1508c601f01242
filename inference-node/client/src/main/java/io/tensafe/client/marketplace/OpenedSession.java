package io.tensafe.client.marketplace;

import io.tensafe.node.privatemode.SessionTerms;
import io.tensafe.node.privatemode.SitePlan;
import java.util.Optional;

/**
 * A private session the marketplace opened for this client.
 *
 * @param id the session id
 * @param adapter the adapter's id
 * @param version the version that serves it
 * @param plan the sites in the order the decoder visits them
 * @param prefillChunk the tokens of every prefill step but the last, ≥ 8
 * @param configSha256 the SHA-256 of the base model's config.json the adapter's manifest names
 * @param terms the session's scales and the node's upload seed key (ADR 0025)
 * @param fleetKeyId the fleet key whose entry of the client's frame-key wrap the node opened (ADR
 *     0037): the client uses the frame keys it wrapped to that fleet; a wrong claim fails every
 *     frame
 */
public record OpenedSession(
    String id,
    String adapter,
    String version,
    SitePlan plan,
    int prefillChunk,
    Optional<String> configSha256,
    SessionTerms terms,
    String fleetKeyId) {}
