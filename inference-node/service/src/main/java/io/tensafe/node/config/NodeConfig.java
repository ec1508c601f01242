package io.tensafe.node.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * Every setting of an inference node ({@code tensafe.node.*}), declared once with its default, but
 * the marketplace link's ({@code tensafe.node.marketplace.*}), which {@code
 * marketplace.MarketplaceConfig} declares beside its reader; application.properties maps each to
 * its environment variable. Empty values count as unset.
 */
@ConfigMapping(prefix = "tensafe.node")
public interface NodeConfig {
  /** The node's name in its fleet (1 to 64 of a-z, 0-9, '.', '_', '-'). */
  String name();

  /** The fleet it joins; required with a marketplace. */
  Optional<String> fleetId();

  /** The fleet's private key file (X25519 + ML-KEM), required with a marketplace. */
  Optional<Path> fleetKeyFile();

  /** The base model it serves (a Hugging Face id); unset means the loaded model's own id. */
  Optional<String> baseModel();

  /** Requests it runs at once (≥ 1); more are refused with 503. */
  @WithDefault("4")
  int maxConcurrency();

  /** How often it heartbeats to the marketplace. */
  @WithDefault("PT10S")
  Duration heartbeatPeriod();

  /** The URL the marketplace dispatches to. */
  String publicUrl();

  /** The model directory (config.json, safetensors, tokenizer); unset runs the generated model. */
  Optional<String> modelDir();

  /** Longest prompt it accepts, in tokens. */
  @WithDefault("8192")
  int maxPromptTokens();

  /**
   * Whether the model's BF16/F16 weight matrices are widened to F32 once at load (twice the memory,
   * the decode speed of an F32 model) instead of held in two bytes per value and widened per
   * product (the default: half the memory, slower decode steps). The logits are the same either
   * way.
   */
  @WithDefault("false")
  boolean widenWeights();

  /** Most tokens it generates for one request. */
  @WithDefault("4096")
  int maxNewTokens();

  /** Memory for opened adapters, in MiB; the least recently used are closed past it. */
  @WithDefault("2048")
  long adapterMemoryMb();

  /** Where downloaded packages are kept. */
  Path adapterCache();

  /** A local directory of packages, when no marketplace is configured. */
  Optional<Path> adapterDir();

  /** The HE backend: auto, cpu or cuda. */
  @WithDefault("auto")
  String backend();

  /** The bearer token that may scrape /metrics from other hosts. */
  Optional<String> metricsToken();

  /**
   * Whether loopback callers may scrape /metrics without the token ({@code
   * TENSAFE_NODE_METRICS_TRUST_LOOPBACK}): off behind a TLS terminator on the same host, where
   * every caller looks local ({@link io.tensafe.node.metrics.ScrapeAccess}).
   */
  @WithDefault("true")
  boolean metricsTrustLoopback();

  /** Where usage reports wait until the marketplace has them. */
  Path outboxDir();

  /** Private-mode sessions (ADR 0017). */
  @WithName("private")
  PrivateSessions privateSessions();

  /** {@code tensafe.node.private.*}: limits on private-mode sessions. */
  interface PrivateSessions {
    /** Sessions held at once (≥ 1); more are refused with 503. */
    @WithDefault("8")
    int maxSessions();

    /** A session without a frame for this long is closed. */
    @WithDefault("PT5M")
    Duration idleTimeout();

    /** The largest frame accepted, in MiB (1 to 1024). */
    @WithDefault("64")
    int maxFrameMb();
  }
}
