package io.tensafe.marketplace.adapter;

import io.tensafe.marketplace.audit.AuditLog;
import io.tensafe.marketplace.identity.CurrentUser;
import io.tensafe.marketplace.problem.ProblemTypes;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.time.OffsetDateTime;

/**
 * Publishing and unpublishing a creator's own versions; suspended ones stay suspended. Each
 * publication sets when the version serves requests named without a version, and each unpublication
 * holds back the dearer versions that would take over ({@link NewVersionNotice}).
 */
@ApplicationScoped
public class PublishService {
  @Inject OwnVersions versions;
  @Inject CurrentUser current;
  @Inject AuditLog audit;
  @Inject NewVersionNotice notice;

  @Transactional
  public VersionState setState(String adapterRef, String version, String state) {
    AdapterVersion v = versions.find(adapterRef, version);
    if ("suspended".equals(v.state)) {
      throw ProblemTypes.conflict("this version is suspended by an administrator");
    }
    if (!state.equals(v.state)) {
      if ("published".equals(state)) {
        // Judged before the state changes: the version it replaces is the one serving without it.
        OffsetDateTime now = OffsetDateTime.now();
        v.newestFrom = notice.newestFrom(v, now);
        v.publishedAt = now;
      } else if ("published".equals(v.state)) {
        // Judged before the state changes too: it is the one serving, about to leave.
        notice.beforeUnpublish(v, OffsetDateTime.now());
      }
      v.state = state;
      audit.record(
          current.user(), "adapter-version." + state, "adapter-version", v.id.toString(), "{}");
    }
    return new VersionState(adapterRef, version, v.state, v.newestFrom);
  }
}
