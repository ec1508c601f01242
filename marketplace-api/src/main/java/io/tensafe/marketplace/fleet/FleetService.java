package io.tensafe.marketplace.fleet;

import io.tensafe.marketplace.audit.AuditLog;
import io.tensafe.marketplace.identity.AppUser;
import io.tensafe.marketplace.identity.CurrentUser;
import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemKind;
import io.tensafe.marketplace.problem.ProblemTypes;
import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.crypto.FleetPublicKey;
import io.tensafe.tgsp.crypto.KeyFiles;
import io.tensafe.tgsp.json.CanonicalJson;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** The fleet registry: public KEM keys only; fleet private keys never reach the marketplace. */
@ApplicationScoped
public class FleetService {
  @Inject NodeFleetRepository fleets;
  @Inject CurrentUser current;
  @Inject AuditLog audit;

  @Transactional
  public FleetView register(byte[] publicKeyFile) {
    FleetPublicKey key;
    try {
      key = KeyFiles.parseFleetPublic("fleet public key file", publicKeyFile);
    } catch (TgspException e) {
      throw new ApiProblem(ProblemKind.KEY_INVALID, 400, "Invalid fleet key", e.getMessage());
    }
    if (fleets.taken(key.fleetId(), key.keyId())) {
      throw ProblemTypes.conflict(
          "fleet '" + key.fleetId() + "' or key " + key.keyId() + " is already registered");
    }
    NodeFleet f = new NodeFleet();
    f.id = UUID.randomUUID();
    f.fleetRef = key.fleetId();
    f.keyId = key.keyId();
    f.document = rewrite(key);
    f.createdAt = OffsetDateTime.now();
    fleets.persist(f);
    AppUser user = current.user();
    audit.record(user, "fleet.register", "fleet", f.fleetRef, "{}");
    return FleetView.of(f);
  }

  public List<FleetView> active() {
    return fleets.active().stream().map(FleetView::of).toList();
  }

  /** The active fleet with this id (its fleet_ref), if any. */
  public Optional<NodeFleet> byRef(String fleetRef) {
    return fleets.activeByRef(fleetRef);
  }

  /** The active fleet with this key id (a package recipient id), if any. */
  public Optional<NodeFleet> byKeyId(String keyId) {
    return fleets.activeByKeyId(keyId);
  }

  private static String rewrite(FleetPublicKey key) {
    return new String(CanonicalJson.encode(KeyFiles.fleetPublicJson(key)), StandardCharsets.UTF_8);
  }
}
