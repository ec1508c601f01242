package io.tensafe.marketplace.adapter;

import io.quarkus.hibernate.orm.panache.PanacheRepositoryBase;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Optional;
import java.util.UUID;

/**
 * The {@link Adapter} rows: created by the first upload of an adapter id ({@link UploadService}),
 * which then belongs to that creator for good; suspended in SQL by {@code admin.SuspensionService}.
 */
@ApplicationScoped
public class AdapterRepository implements PanacheRepositoryBase<Adapter, UUID> {

  /** The adapter with this id (what clients name as the model; the column is unique). */
  public Optional<Adapter> byRef(String adapterRef) {
    return find("adapterRef", adapterRef).firstResultOptional();
  }
}
