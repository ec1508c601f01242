package io.tensafe.marketplace.apikey;

import io.quarkus.hibernate.orm.panache.PanacheRepositoryBase;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.UUID;

/**
 * The adapters each scoped key may use (table {@code api_key_adapter}). Rows are written with the
 * key and never changed; a key with none may use every published adapter.
 */
@ApplicationScoped
public class ApiKeyScopeRepository implements PanacheRepositoryBase<ApiKeyScope, ApiKeyScope.Id> {

  /** The adapter ids ({@code adapterRef}) a key is scoped to, sorted; empty for an unscoped key. */
  public List<String> adapterRefs(UUID apiKeyId) {
    return getEntityManager()
        .createQuery(
            "select a.adapterRef from ApiKeyScope s, Adapter a where s.id.apiKeyId = :k and"
                + " a.id = s.id.adapterId order by a.adapterRef",
            String.class)
        .setParameter("k", apiKeyId)
        .getResultList();
  }
}
