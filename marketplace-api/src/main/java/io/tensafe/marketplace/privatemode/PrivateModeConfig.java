package io.tensafe.marketplace.privatemode;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/**
 * Private mode's settings, named with the gateway's ({@code tensafe.gateway.*}, whose requests they
 * meter) but declared here, beside the frames and sessions that read them, so that the gateway's
 * settings are the gateway's own. The frame size limit, which the gateway's body limit reads too,
 * stays in {@code gateway.GatewayConfig}.
 */
@ConfigMapping(prefix = "tensafe.gateway")
public interface PrivateModeConfig {
  /**
   * A private session without an accepted frame for this long is ended (at its replica's next
   * sweep) and billed for what it was served; one whose replica stopped vouching for it is ended by
   * any replica after {@code tensafe.gateway.lost-after}, as a hosted request is.
   */
  @WithDefault("PT2M")
  Duration privateIdleTimeout();

  /**
   * How long a private-session frame may take at the relay, from its body's start to the node's
   * answer: a client whose body has not all arrived by then is dropped, without blaming the node; a
   * node that had the whole frame and did not answer by then failed.
   */
  @WithDefault("PT2M")
  Duration privateFrameTimeout();

  /**
   * Private-session frames that cost one request of the key's requests per minute ({@link
   * io.tensafe.marketplace.limits.KeyRateConfig#requestsPerMinutePerKey()}): a session draws one
   * request from the key's allowance at its first frame and at every this-many frames after it (≥
   * 1).
   */
  @WithDefault("128")
  int framesPerRequest();

  /**
   * Bytes of private-session frames this replica holds or relays at once, all sessions together:
   * the frames' declared lengths from admission until their answers are handed back, plus the
   * answers. A frame that would pass it is refused with 503 before its body is read, unless no
   * other frame is in flight (256 MiB).
   */
  @WithDefault("268435456")
  long maxFrameBytesInFlight();
}
