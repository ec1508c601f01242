package io.tensafe.marketplace.creator;

/**
 * What a creator needs before packing: the creator id their signing keys and packages must carry.
 *
 * @param creatorId the account's creator id: fixed once its first key is registered; until then the
 *     id proposed for it (its organisation's slug when free), which the first key may still choose
 *     differently
 * @param fixed whether a registered key has fixed {@code creatorId}
 * @param keygenCommand the command that writes a key for this id
 */
public record CreatorProfile(String creatorId, boolean fixed, String keygenCommand) {
  static CreatorProfile of(String creatorId, boolean fixed) {
    return new CreatorProfile(
        creatorId,
        fixed,
        "./tensafe tgsp keygen creator --creator-id " + creatorId + " --out keys");
  }
}
