package io.tensafe.marketplace.privatemode;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.smallrye.common.annotation.Blocking;
import io.tensafe.marketplace.apikey.ApiKeyAuthenticated;
import io.tensafe.marketplace.fleet.NodeFleetRepository;
import jakarta.annotation.security.PermitAll;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * {@code GET /v1/private/fleets}: the active node fleets' public keys, which a private-mode client
 * wraps its frame keys to (ADR 0037). The marketplace only vouches for these on first contact: the
 * client pins each fleet's key the first time it sees it (or is given it out of band) and refuses a
 * later answer that names another key for the same fleet, so a marketplace that substitutes a key
 * of its own is caught unless it did so from the client's very first session.
 */
@Path("/v1/private/fleets")
@PermitAll
@ApiKeyAuthenticated
@Produces(MediaType.APPLICATION_JSON)
public class PrivateFleetsResource {
  @Inject NodeFleetRepository fleets;

  /** The list. */
  public record Fleets(String object, List<Fleet> data) {}

  /**
   * One fleet.
   *
   * @param id the fleet's id
   * @param keyId its key id (32 hex digits from both public keys)
   * @param publicKey the canonical fleet public key file (X25519 and ML-KEM-768)
   */
  public record Fleet(
      String object,
      String id,
      @JsonProperty("key_id") String keyId,
      @JsonProperty("public_key") String publicKey) {}

  @Operation(
      summary = "List the node fleets' public keys that private sessions' frame keys wrap to")
  @GET
  @Blocking
  public Fleets list() {
    return new Fleets(
        "list",
        fleets.active().stream()
            .map(f -> new Fleet("tensafe.fleet", f.fleetRef, f.keyId, f.document))
            .toList());
  }
}
