package io.tensafe.marketplace.audit;

import io.quarkus.hibernate.orm.panache.PanacheRepository;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The audit log's rows, appended by {@link AuditLog} only (the log is append-only: nothing updates
 * or deletes them). Admins read it through {@link AuditSearch}, in SQL, since it searches the text
 * of every column at once.
 */
@ApplicationScoped
public class AuditEntryRepository implements PanacheRepository<AuditEntry> {}
