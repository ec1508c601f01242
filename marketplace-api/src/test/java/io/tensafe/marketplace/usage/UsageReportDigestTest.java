package io.tensafe.marketplace.usage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A usage report's digest (issue 51, ADR 0038) is a function of its values, through their canonical
 * JSON: a resend read back from the wire digests the same; any changed value does not.
 */
class UsageReportDigestTest {
  private static NodeUsageReport report(int completion, double heMillis) {
    return new NodeUsageReport(
        "0b6f2c1e-4d3a-4b2c-9d8e-7f6a5b4c3d2e",
        "node-1",
        "acme-support",
        "1.0.0",
        12,
        completion,
        "stop",
        40,
        0.5,
        24,
        28,
        28,
        28,
        heMillis,
        3.25,
        Instant.parse("2026-11-28T10:00:00.123456789Z"),
        Instant.parse("2026-11-28T10:00:01Z"));
  }

  @Test
  void aResendReadBackFromJson_digestsTheSame() throws Exception {
    ObjectMapper json = new ObjectMapper().registerModule(new JavaTimeModule());
    NodeUsageReport sent = report(16, 1.5);
    NodeUsageReport resent = json.readValue(json.writeValueAsBytes(sent), NodeUsageReport.class);
    assertEquals(UsageEvents.sha256(sent), UsageEvents.sha256(resent));
    assertEquals(64, UsageEvents.sha256(sent).length());
  }

  @Test
  void countsBeyondJsonsSafeIntegers_digestToo() {
    NodeUsageReport r = report(16, 1.5);
    NodeUsageReport huge =
        new NodeUsageReport(
            r.requestId(),
            r.node(),
            r.adapterId(),
            r.adapterVersion(),
            r.promptTokens(),
            r.completionTokens(),
            r.finishReason(),
            Long.MAX_VALUE,
            r.dpNoiseMultiplier(),
            r.heCalls(),
            r.heEncryptions(),
            r.hePlaintextProducts(),
            r.heDecryptions(),
            r.heMillis(),
            r.totalMillis(),
            r.startedAt(),
            r.finishedAt());
    assertEquals(64, UsageEvents.sha256(huge).length());
  }

  @Test
  void anyChangedValue_digestsDifferently() {
    String digest = UsageEvents.sha256(report(16, 1.5));
    assertNotEquals(digest, UsageEvents.sha256(report(17, 1.5)));
    assertNotEquals(digest, UsageEvents.sha256(report(16, 1.5000001)));
  }
}
