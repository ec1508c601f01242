package io.tensafe.marketplace.web;

import io.quarkus.security.identity.SecurityIdentity;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.jwt.JsonWebToken;

/** The {@link Viewer} of this request, from the verified session's token. */
@RequestScoped
public class CurrentViewer {
  @Inject SecurityIdentity identity;
  @Inject JsonWebToken token;

  public Viewer get() {
    String name =
        token.<String>claim("preferred_username").orElse(identity.getPrincipal().getName());
    return Viewer.of(identity, name);
  }
}
