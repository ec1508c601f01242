package io.tensafe.marketplace.adapter;

import io.tensafe.marketplace.creator.Creator;
import io.tensafe.marketplace.creator.CreatorService;
import io.tensafe.marketplace.problem.ProblemTypes;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/** Finds a version of the current creator's own adapters; anyone else's is "not found". */
@ApplicationScoped
public class OwnVersions {
  @Inject AdapterVersionRepository versions;
  @Inject CreatorService creators;

  public AdapterVersion find(String adapterRef, String version) {
    Creator creator =
        creators.currentCreator().orElseThrow(() -> ProblemTypes.notFound("adapter " + adapterRef));
    return versions
        .ofCreator(adapterRef, creator.id, version)
        .orElseThrow(() -> ProblemTypes.notFound("adapter " + adapterRef + "@" + version));
  }
}
