package io.tensafe.marketplace.usage;

import io.quarkus.logging.Log;
import io.tensafe.marketplace.billing.ChargeLedger;
import io.tensafe.marketplace.billing.NewCharge;
import io.tensafe.marketplace.fleet.Node;
import io.tensafe.marketplace.fleet.NodeService;
import io.tensafe.marketplace.openai.GatewayRequests;
import io.tensafe.marketplace.openai.ServedVersions;
import io.tensafe.marketplace.privacy.PrivacyBudgets;
import io.tensafe.marketplace.privacy.ReleaseCount;
import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemKind;
import io.tensafe.marketplace.problem.ProblemTypes;
import io.tensafe.marketplace.sql.Rows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import java.nio.charset.StandardCharsets;
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
  @Inject ChargeLedger charges;
  @Inject PrivacyBudgets budgets;
  @Inject ServedVersions versions;

  /** The digest and reporting node of a stored usage report. */
  private record StoredReport(String sha256, UUID nodeId) {}

  /** Records {@code r} from this credential's node {@code r.node()}. */
  @Transactional
  public UsageAck record(NodeUsageReport r) {
    Node node =
        nodes
            .own(r.node())
            .orElseThrow(() -> ProblemTypes.notFound("node " + r.node() + " (register first)"));
    if (node.suspendedAt != null) {
      throw new ApiProblem(ProblemKind.FORBIDDEN, "node " + r.node() + " is suspended");
    }
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
    var dispatched = requests.find(r.requestId());
    if (dispatched.isEmpty()) {
      // The report may have overtaken the commit of the request's admission (the gateway sends the
      // request to the node just before it commits, holding the request's lock): wait on that lock
      // and look again. Only here: a report of a committed request takes the lock later, after its
      // charge, in the order the gateway's own settlement takes them (no deadlock).
      budgets.lockRequest(r.requestId());
      dispatched = requests.find(r.requestId());
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
      dispatched.ifPresent(d -> chargeIfDispatched(r, d));
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
   * Settles the DP reservation of a request the gateway dispatched (to this node: a report from any
   * other node was refused) to the releases its node made ({@link ReleaseCount}; never more than
   * the reservation), and charges the request from this report unless the gateway ended it itself:
   * then the gateway has billed what it delivered ({@code RequestSettlement}) and the report's
   * token counts are the node's side of the cross-check only, except for a client that left before
   * its first token, whose prompt the report bills (the node ran it). A report is what bills a
   * request when the marketplace restarted mid-stream, and one that arrives while the stream is
   * still open bills the same final counts the gateway will (the node stores its report before
   * sending its final event; charges and settlements are idempotent by request id). Token counts
   * are billed at most the request's limits (the prompt bound and {@code max_tokens} the gateway
   * recorded), whatever the node claims.
   */
  private void chargeIfDispatched(NodeUsageReport r, GatewayRequests.Dispatched d) {
    GatewayRequests.Context c = d.context();
    int prompt = c.limits().prompt(r.promptTokens());
    int completion = c.limits().completion(r.completionTokens());
    if (prompt != r.promptTokens() || completion != r.completionTokens()) {
      Log.warnf(
          "request %s: node %s reported %d + %d tokens, more than the request allows; billing"
              + " %d + %d",
          r.requestId(), r.node(), r.promptTokens(), r.completionTokens(), prompt, completion);
    }
    if (!c.adapterRef().equals(r.adapterId()) || !c.version().equals(r.adapterVersion())) {
      throw ProblemTypes.conflict(
          "request " + r.requestId() + " was dispatched for " + c.adapterRef() + "@" + c.version());
    }
    if (!c.ended()) {
      charges.record(charge(r, c, prompt, completion));
    } else if (d.clientLeftBeforeFirstToken()) {
      // The node accepted the request and ran the prompt; the client left before any token.
      charges.recordUnlessBilled(charge(r, c, prompt, 0));
    }
    budgets.settleReported(
        r.requestId(),
        ReleaseCount.settled(
            r.dpReleases(),
            prompt,
            completion,
            versions.releasesPerToken(c.adapterRef(), c.version())));
  }

  private static NewCharge charge(
      NodeUsageReport r, GatewayRequests.Context c, int promptTokens, int completionTokens) {
    return new NewCharge(
        r.requestId(),
        c.clientOrganisationId(),
        c.apiKeyId(),
        c.adapterRef(),
        c.version(),
        promptTokens,
        completionTokens,
        c.startedAt(),
        c.routeReason());
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

  /** SHA-256 of the report's values (the record's text form), to tell resends from conflicts. */
  static String sha256(NodeUsageReport r) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256")
                  .digest(r.toString().getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
