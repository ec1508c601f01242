package io.tensafe.marketplace.admin;

import io.tensafe.marketplace.identity.UserSummary;
import io.tensafe.marketplace.paging.Page;
import io.tensafe.marketplace.sql.Rows;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * {@code GET /api/admin/users}: every person known to the marketplace, oldest first; and their
 * suspension by OIDC subject. The suspension endpoints live here because this class's literal path
 * wins over {@link AdminResource}'s template for {@code /api/admin/users/...}.
 */
@Path("/api/admin/users")
@RolesAllowed("admin")
@Produces(MediaType.APPLICATION_JSON)
public class AdminUserResource {
  @Inject EntityManager em;
  @Inject SuspensionService suspensions;

  @Operation(summary = "Suspend a user: their sign-ins and API keys stop working")
  @POST
  @Path("/{id}/suspend")
  public SuspensionState suspend(@PathParam("id") @Size(min = 1, max = 255) String id) {
    return suspensions.set("users", id, true);
  }

  @Operation(summary = "Lift the suspension of a user")
  @POST
  @Path("/{id}/unsuspend")
  public SuspensionState unsuspend(@PathParam("id") @Size(min = 1, max = 255) String id) {
    return suspensions.set("users", id, false);
  }

  @Operation(summary = "List the users and their organisations (admins)")
  @GET
  public Page<UserSummary> all(
      @QueryParam("page") @DefaultValue("0") @Min(0) int page,
      @QueryParam("size") @DefaultValue("50") @Min(1) @Max(200) int size) {
    long total =
        ((Number) em.createNativeQuery("SELECT count(*) FROM app_user").getSingleResult())
            .longValue();
    List<UserSummary> items =
        Rows.list(
            em.createNativeQuery(
                    """
                SELECT u.oidc_subject, u.username, u.email, o.slug, u.created_at, u.suspended_at
                FROM app_user u JOIN organisation o ON o.id = u.organisation_id
                ORDER BY u.created_at, u.username
                """)
                .setFirstResult(page * size)
                .setMaxResults(size),
            UserSummary.class);
    return new Page<>(items, page, size, total);
  }
}
