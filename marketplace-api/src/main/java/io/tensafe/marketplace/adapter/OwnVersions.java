package io.tensafe.marketplace.adapter;

import io.tensafe.marketplace.creator.Creator;
import io.tensafe.marketplace.creator.CreatorService;
import io.tensafe.marketplace.problem.ProblemTypes;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;

/** Finds a version of the current creator's own adapters; anyone else's is "not found". */
@ApplicationScoped
public class OwnVersions {
  @Inject EntityManager em;
  @Inject CreatorService creators;

  public AdapterVersion find(String adapterRef, String version) {
    Creator creator =
        creators.currentCreator().orElseThrow(() -> ProblemTypes.notFound("adapter " + adapterRef));
    return em.createQuery(
            "select v from AdapterVersion v, Adapter a where v.adapterId = a.id and a.adapterRef"
                + " = :r and a.creatorId = :c and v.version = :v",
            AdapterVersion.class)
        .setParameter("r", adapterRef)
        .setParameter("c", creator.id)
        .setParameter("v", version)
        .getResultStream()
        .findFirst()
        .orElseThrow(() -> ProblemTypes.notFound("adapter " + adapterRef + "@" + version));
  }
}
