package io.tensafe.marketplace.adapter;

import io.quarkus.hibernate.orm.panache.PanacheRepositoryBase;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.UUID;

/**
 * The DP policies of uploaded versions, one per version, written at upload and never changed (the
 * database refuses a change, V24). The budgets that spend them are {@code privacy}'s, in SQL.
 */
@ApplicationScoped
public class DpPolicyRepository implements PanacheRepositoryBase<DpPolicy, UUID> {}
