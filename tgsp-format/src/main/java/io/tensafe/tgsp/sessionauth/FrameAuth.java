package io.tensafe.tgsp.sessionauth;

import io.tensafe.tgsp.container.MalformedPackageException;
import io.tensafe.tgsp.container.RecipientsCodec;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import io.tensafe.tgsp.crypto.FleetPublicKey;
import io.tensafe.tgsp.crypto.HybridKeyWrap;
import io.tensafe.tgsp.crypto.KeyUnwrapException;
import io.tensafe.tgsp.crypto.RecipientEntry;
import io.tensafe.tgsp.io.LimitExceededException;
import io.tensafe.tgsp.io.TrailingBytesException;
import io.tensafe.tgsp.io.TruncatedInputException;
import io.tensafe.tgsp.session.MalformedFrameException;
import io.tensafe.tgsp.session.SessionFrame;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * End-to-end authentication of a private session's frames between the client and the node, with
 * keys the marketplace never holds (ADR 0037). The client draws a 32-byte session secret per fleet
 * it trusts and wraps it to that fleet's public key ({@link HybridKeyWrap}: X25519 and ML-KEM-768),
 * bound to the session's CKKS public keys; only a holder of the fleet's private key (a node of that
 * fleet) unwraps it. Each frame's 16-byte tag is HMAC-SHA256 under the sender's direction key over
 * the whole frame with the tag zeroed, so a relay that alters a byte, replays a frame (the sequence
 * is covered and each end checks it) or swaps frames is refused by the other end.
 *
 * <p>Who holds what: the client and the node hold both direction keys for the session only; the
 * marketplace relays the wrapped secret and the tagged frames and can verify nothing. Immutable and
 * thread-safe.
 */
public final class FrameAuth {
  /** Which end sent a frame: each direction has its own key. */
  public enum Direction {
    CLIENT_TO_NODE,
    NODE_TO_CLIENT
  }

  /** The tag: the header's last bytes ({@link SessionFrame}). */
  private static final int TAG_BYTES = SessionFrame.TAG_BYTES;

  private static final int TAG_AT = SessionFrame.HEADER_BYTES - TAG_BYTES;

  /** Bytes of the session secret. */
  public static final int SECRET_BYTES = 32;

  private final byte[] secret;
  private final byte[] clientKey;
  private final byte[] nodeKey;

  private FrameAuth(byte[] secret) {
    this(secret, new byte[0]);
  }

  private FrameAuth(byte[] secret, byte[] opening) {
    if (secret.length != SECRET_BYTES) {
      throw new IllegalArgumentException("a frame secret has " + SECRET_BYTES + " bytes");
    }
    this.secret = secret.clone();
    this.clientKey = hmac(secret, label("tensafe frames client to node", opening));
    this.nodeKey = hmac(secret, label("tensafe frames node to client", opening));
  }

  /**
   * These keys bound to the session's opening: {@code opening} is what both ends agree the opening
   * said (the node's terms and plan, each end computing the same bytes from what it sent or
   * received). A relay that altered the opening, or replayed it into a second node session (whose
   * terms differ), leaves the two ends with different keys, and the first frame is refused.
   */
  public FrameAuth bind(byte[] opening) {
    return new FrameAuth(secret, sha256(opening));
  }

  private static byte[] label(String label, byte[] opening) {
    byte[] l = label.getBytes(StandardCharsets.UTF_8);
    byte[] out = Arrays.copyOf(l, l.length + opening.length);
    System.arraycopy(opening, 0, out, l.length, opening.length);
    return out;
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  /**
   * What the client sends at opening ({@code wrap}: one entry per fleet it trusts, each with its
   * own secret) and keeps ({@code byKeyId}: each fleet key id's frame keys; the node's opening
   * answer names the key id that unwrapped, and any other key id's keys fail every frame).
   */
  public record Offer(Map<String, FrameAuth> byKeyId, byte[] wrap) {
    public Offer {
      byKeyId = Map.copyOf(byKeyId);
      wrap = wrap.clone();
    }

    @Override
    public byte[] wrap() {
      return wrap.clone();
    }
  }

  /**
   * The client's side: a fresh secret per fleet in {@code fleets} (1 to {@link
   * RecipientsCodec#MAX_RECIPIENTS}, distinct keys), wrapped to its public key and bound to {@code
   * sessionKeys} (each ring's CKKS public key bytes, in the opening's order).
   */
  public static Offer offer(
      List<FleetPublicKey> fleets, List<byte[]> sessionKeys, SecureRandom random) {
    if (fleets.isEmpty() || fleets.size() > RecipientsCodec.MAX_RECIPIENTS) {
      throw new IllegalArgumentException(
          "frame keys are offered to 1 to " + RecipientsCodec.MAX_RECIPIENTS + " fleets");
    }
    byte[] context = context(sessionKeys);
    Map<String, FrameAuth> byKeyId = new LinkedHashMap<>();
    List<RecipientEntry> entries = new ArrayList<>();
    for (FleetPublicKey fleet : fleets) {
      byte[] secret = new byte[SECRET_BYTES];
      random.nextBytes(secret);
      if (byKeyId.put(fleet.keyId(), new FrameAuth(secret)) != null) {
        throw new IllegalArgumentException("fleet key " + fleet.keyId() + " is offered twice");
      }
      entries.add(HybridKeyWrap.wrap(fleet, secret, context, random));
    }
    return new Offer(byKeyId, RecipientsCodec.encode(entries));
  }

  /**
   * The node's side: the secret in {@code wrap}'s entry for {@code fleet}'s key, unwrapped with the
   * fleet's private key.
   *
   * @throws MalformedFrameException if the wrap is malformed, has no entry for this fleet key, or
   *     the entry was bound to other session keys or altered
   */
  public static FrameAuth accept(FleetKeyPair fleet, byte[] wrap, List<byte[]> sessionKeys)
      throws MalformedFrameException {
    if (wrap.length > RecipientsCodec.MAX_SECTION_BYTES) {
      throw new MalformedFrameException("the frame key wrap is too long");
    }
    String keyId = fleet.publicKey().keyId();
    try {
      for (RecipientEntry entry : RecipientsCodec.decode(wrap)) {
        if (entry.recipientId().equals(keyId)) {
          return new FrameAuth(HybridKeyWrap.unwrap(fleet, entry, context(sessionKeys)));
        }
      }
    } catch (KeyUnwrapException
        | LimitExceededException
        | TruncatedInputException
        | TrailingBytesException
        | MalformedPackageException
        | IllegalArgumentException e) {
      throw new MalformedFrameException(
          "the frame key wrap does not open with fleet key "
              + keyId
              + " for these session keys: "
              + e.getMessage());
    }
    throw new MalformedFrameException(
        "the frame key wrap has no entry for this node's fleet key " + keyId);
  }

  /** Both directions' keys from {@code secret}, for tests that build both ends in one process. */
  public static FrameAuth fromSecretForTesting(byte[] secret) {
    return new FrameAuth(secret);
  }

  /** {@code frame} (a {@link SessionFrame}'s bytes) with its tag filled in for {@code from}. */
  public byte[] seal(byte[] frame, Direction from) {
    requireHeader(frame);
    byte[] out = frame.clone();
    System.arraycopy(tag(out, from), 0, out, TAG_AT, TAG_BYTES);
    return out;
  }

  /**
   * Checks {@code frame}'s tag for {@code from}, in constant time, before anything else reads it.
   *
   * @throws MalformedFrameException if the tag is not the sender's for these bytes
   */
  public void verify(byte[] frame, Direction from) throws MalformedFrameException {
    if (frame.length < SessionFrame.HEADER_BYTES) {
      throw new MalformedFrameException("frame is shorter than its header");
    }
    byte[] expected = tag(frame, from);
    byte[] given = Arrays.copyOfRange(frame, TAG_AT, TAG_AT + TAG_BYTES);
    if (!MessageDigest.isEqual(expected, given)) {
      throw new MalformedFrameException(
          "the frame's tag is not the "
              + (from == Direction.CLIENT_TO_NODE ? "client's" : "node's")
              + ": it was altered or sent by another party");
    }
  }

  private byte[] tag(byte[] frame, Direction from) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(
          new SecretKeySpec(from == Direction.CLIENT_TO_NODE ? clientKey : nodeKey, "HmacSHA256"));
      mac.update(frame, 0, TAG_AT);
      mac.update(new byte[TAG_BYTES]);
      mac.update(frame, SessionFrame.HEADER_BYTES, frame.length - SessionFrame.HEADER_BYTES);
      return Arrays.copyOf(mac.doFinal(), TAG_BYTES);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }

  private static void requireHeader(byte[] frame) {
    if (frame.length < SessionFrame.HEADER_BYTES) {
      throw new IllegalArgumentException("not a frame: shorter than its header");
    }
  }

  /** SHA-256 over a domain and each key, length-prefixed: binds a wrap to one session's keys. */
  private static byte[] context(List<byte[]> sessionKeys) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update("tensafe frame key".getBytes(StandardCharsets.UTF_8));
      for (byte[] key : sessionKeys) {
        sha.update(java.nio.ByteBuffer.allocate(8).putLong(key.length).array());
        sha.update(key);
      }
      return sha.digest();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  private static byte[] hmac(byte[] key, byte[] data) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(data);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }
}
