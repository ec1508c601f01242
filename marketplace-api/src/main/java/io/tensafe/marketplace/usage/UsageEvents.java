package io.tensafe.marketplace.usage;

import io.tensafe.marketplace.fleet.Node;
import io.tensafe.marketplace.fleet.NodeService;
import io.tensafe.marketplace.gateway.GatewayRequests;
import io.tensafe.marketplace.gateway.RequestMode;
import io.tensafe.marketplace.gateway.RequestSweeper;
import io.tensafe.marketplace.gateway.ServedVersions;
import io.tensafe.marketplace.gateway.Settlement;
import io.tensafe.marketplace.privacy.PrivacyBudgets;
import io.tensafe.marketplace.problem.ProblemTypes;
import io.tensafe.marketplace.sql.Rows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Timestamp;
import java.util.HexFormat;
import java.util.UUID;

/**
 * The usage-event ledger: node reports, recorded once per request id. A report sent again (the node
 * did not see our acknowledgement) is acknowledged as a duplicate without a second row; a different
 * report under a recorded request id is refused with 409, since one of the two is wrong.
 */
@ApplicationScoped
public class UsageEvents {
  @Inject EntityManager em;
  @Inject NodeService nodes;
  @Inject GatewayRequests requests;
  @Inject PrivacyBudgets budgets;
  @Inject ServedVersions versions;
  @Inject Settlement settlement;
  @Inject RequestSweeper sweeper;

  /** The digest and reporting node of a stored usage report. */
  private record StoredReport(String sha256, UUID nodeId) {}

  /** Records {@code r} from this credential's node {@code r.node()}. */
  @Transactional
  public UsageAck record(NodeUsageReport r) {
    Node node =
        nodes
            .own(r.node())
            .orElseThrow(() -> ProblemTypes.notFound("node " + r.node() + " (register first)"));
    nodes.requireUsable(node);
    if ((r.adapterId() == null) != (r.adapterVersion() == null)) {
      throw ProblemTypes.validation("adapterId and adapterVersion go together");
    }
    if (r.finishedAt().isBefore(r.startedAt())) {
      throw ProblemTypes.validation("finishedAt is before startedAt");
    }
    if (r.adapterId() != null && !versionExists(r.adapterId(), r.adapterVersion())) {
      throw ProblemTypes.validation(
          "adapter version " + r.adapterId() + "@" + r.adapterVersion() + " does not exist");
    }
    var dispatched = requests.find(r.requestId(), sweeper.lostBefore());
    if (dispatched.isEmpty()) {
      // The report may have overtaken the commit of the request's admission (the gateway sends the
      // request to the node just before it commits, holding the request's lock): wait on that lock
      // and look again. Only here: a report of a committed request takes the lock later, after its
      // charge, in the order the gateway's own settlement takes them (no deadlock).
      budgets.lockRequest(r.requestId());
      dispatched = requests.find(r.requestId(), sweeper.lostBefore());
    }
    if (dispatched.isPresent() && !node.id.equals(dispatched.get().nodeId())) {
      throw ProblemTypes.conflict(
          "request " + r.requestId() + " was not dispatched to node " + r.node());
    }
    String sha = sha256(r);
    int inserted =
        em.createNativeQuery(
                """
                INSERT INTO usage_event (request_id, node_id, adapter_ref, adapter_version,
                    prompt_tokens, completion_tokens, finish_reason, dp_releases,
                    dp_noise_multiplier, he_calls, he_encryptions, he_products, he_decryptions,
                    he_millis, total_millis, started_at, finished_at, report_sha256)
                VALUES (:request, :node, :ref, :version, :prompt, :completion, :finish, :releases,
                    :noise, :calls, :enc, :products, :dec, :heMillis, :totalMillis, :started,
                    :finished, :sha)
                ON CONFLICT (request_id) DO NOTHING
                """)
            .setParameter("request", UUID.fromString(r.requestId()))
            .setParameter("node", node.id)
            .setParameter("ref", r.adapterId())
            .setParameter("version", r.adapterVersion())
            .setParameter("prompt", r.promptTokens())
            .setParameter("completion", r.completionTokens())
            .setParameter("finish", r.finishReason())
            .setParameter("releases", r.dpReleases())
            .setParameter("noise", r.dpNoiseMultiplier())
            .setParameter("calls", r.heCalls())
            .setParameter("enc", r.heEncryptions())
            .setParameter("products", r.hePlaintextProducts())
            .setParameter("dec", r.heDecryptions())
            .setParameter("heMillis", r.heMillis())
            .setParameter("totalMillis", r.totalMillis())
            .setParameter("started", Timestamp.from(r.startedAt()))
            .setParameter("finished", Timestamp.from(r.finishedAt()))
            .setParameter("sha", sha)
            .executeUpdate();
    if (inserted == 1) {
      dispatched.ifPresent(d -> settleIfDispatched(r, d));
      return new UsageAck(r.requestId(), "recorded");
    }
    StoredReport stored =
        Rows.single(
            em.createNativeQuery(
                    "SELECT report_sha256, node_id FROM usage_event WHERE request_id = :request")
                .setParameter("request", UUID.fromString(r.requestId())),
            StoredReport.class);
    if (!sha.equals(stored.sha256().trim()) || !node.id.equals(stored.nodeId())) {
      throw ProblemTypes.conflict(
          "request id " + r.requestId() + " was already reported with different usage");
    }
    return new UsageAck(r.requestId(), "duplicate");
  }

  /**
   * What a report of a request the gateway dispatched (to this node: a report from any other node,
   * one that failed over included, was refused) does (ADR 0026). A report never bills a request
   * whose gateway is alive: its counts are the node's side of the cross-check only. For a request
   * the gateway ended before the node's final event (client gone, node failed or timed out), the
   * gateway billed what it relayed, and the report settles the DP reservation to the node's count
   * within what was relayed ({@code ReleaseCount.settled}). A report for a hosted request whose
   * gateway died ends it as the sweep would ({@link RequestSweeper#endIfStillLost(String)}, from
   * its row re-read and locked): billed at most what the gateway recorded as relayed.
   */
  private void settleIfDispatched(NodeUsageReport r, GatewayRequests.Dispatched d) {
    GatewayRequests.Context c = d.context();
    if (!c.adapterRef().equals(r.adapterId()) || !c.version().equals(r.adapterVersion())) {
      throw ProblemTypes.conflict(
          "request " + r.requestId() + " was dispatched for " + c.adapterRef() + "@" + c.version());
    }
    if (d.mode() != RequestMode.HOSTED) {
      return; // a private session is billed and settled from the frames the marketplace relayed
    }
    if (c.ended()) {
      settlement.settleReported(
          r.requestId(), d, r.dpReleases(), versions.releasesPerToken(c.adapterRef(), c.version()));
    } else if (d.gatewayLost()) {
      // Not from the read above: the gateway may have recorded more since (ADR 0040).
      sweeper.endIfStillLost(r.requestId());
    }
  }

  /** Usage events recorded for {@code requestId} (0 or 1). */
  public long count(String requestId) {
    return ((Number)
            em.createNativeQuery("SELECT count(*) FROM usage_event WHERE request_id = :r")
                .setParameter("r", UUID.fromString(requestId))
                .getSingleResult())
        .longValue();
  }

  private boolean versionExists(String ref, String version) {
    return !em.createNativeQuery(
            "SELECT 1 FROM adapter_version v JOIN adapter a ON a.id = v.adapter_id"
                + " WHERE a.adapter_ref = :ref AND v.version = :version")
        .setParameter("ref", ref)
        .setParameter("version", version)
        .getResultList()
        .isEmpty();
  }

  /**
   * SHA-256 of the report's canonical JSON (tgsp-format's {@code CanonicalJson}, RFC 8785; counts,
   * fractional figures and times as their decimal, shortest decimal and ISO-8601 strings), to tell
   * a resend of the same report from a different one for the same request id (ADR 0038). The
   * report's identity is its request id ({@code usage_event}'s key); this digest only says whether
   * a second report under that identity is the same one. It depends on the values alone, never on a
   * record's text form.
   */
  static String sha256(NodeUsageReport r) {
    java.util.Map<String, io.tensafe.tgsp.json.JsonValue> m = new java.util.HashMap<>();
    m.put("requestId", text(r.requestId()));
    m.put("node", text(r.node()));
    m.put("adapterId", text(r.adapterId()));
    m.put("adapterVersion", text(r.adapterVersion()));
    m.put("promptTokens", integer(r.promptTokens()));
    m.put("completionTokens", integer(r.completionTokens()));
    m.put("finishReason", text(r.finishReason()));
    m.put("dpReleases", integer(r.dpReleases()));
    m.put("dpNoiseMultiplier", text(Double.toString(r.dpNoiseMultiplier())));
    m.put("heCalls", integer(r.heCalls()));
    m.put("heEncryptions", integer(r.heEncryptions()));
    m.put("hePlaintextProducts", integer(r.hePlaintextProducts()));
    m.put("heDecryptions", integer(r.heDecryptions()));
    m.put("heMillis", text(Double.toString(r.heMillis())));
    m.put("totalMillis", text(Double.toString(r.totalMillis())));
    m.put("startedAt", text(r.startedAt().toString()));
    m.put("finishedAt", text(r.finishedAt().toString()));
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256")
                  .digest(
                      io.tensafe.tgsp.json.CanonicalJson.encode(
                          new io.tensafe.tgsp.json.JsonValue.JsonObject(m))));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static io.tensafe.tgsp.json.JsonValue text(String s) {
    return s == null
        ? new io.tensafe.tgsp.json.JsonValue.JsonNull()
        : new io.tensafe.tgsp.json.JsonValue.JsonString(s);
  }

  /** A count as a decimal string: counts may exceed the 2^53 − 1 canonical JSON numbers carry. */
  private static io.tensafe.tgsp.json.JsonValue integer(long n) {
    return text(Long.toString(n));
  }
}
