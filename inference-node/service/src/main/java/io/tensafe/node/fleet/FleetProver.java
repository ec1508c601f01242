package io.tensafe.node.fleet;

import io.tensafe.node.marketplace.MarketplaceClient;
import io.tensafe.tgsp.crypto.FleetChallenge;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import io.tensafe.tgsp.crypto.KeyUnwrapException;
import java.io.IOException;
import java.util.Base64;
import java.util.Map;

/**
 * Answers the marketplace's registration challenge with the fleet's private key, so that the node
 * may join its fleet: asks for a challenge for its name, unwraps the nonce, and returns the {@code
 * fleetProof} of the registration body. The private key never leaves the node.
 */
@FunctionalInterface
public interface FleetProver {
  /** The {@code fleetProof} object for registering as {@code name}. */
  Map<String, String> prove(String name) throws IOException;

  /** The prover of a node holding {@code fleet}'s private key, talking to {@code marketplace}. */
  static FleetProver of(MarketplaceClient marketplace, FleetKeyPair fleet) {
    return name -> {
      MarketplaceClient.Challenge c = marketplace.challenge(fleet.publicKey().fleetId(), name);
      byte[] nonce;
      try {
        nonce = FleetChallenge.answer(fleet, c.id(), name, c.wrapped());
      } catch (KeyUnwrapException e) {
        throw new IOException(
            "the marketplace's challenge does not unwrap with this node's fleet key "
                + fleet.publicKey().keyId()
                + " (is tensafe.node.fleet-key-file the key of fleet "
                + fleet.publicKey().fleetId()
                + " as registered?)",
            e);
      }
      return Map.of(
          "challengeId",
          c.id(),
          "nonce",
          Base64.getUrlEncoder().withoutPadding().encodeToString(nonce));
    };
  }
}
