package io.tensafe.marketplace.organisation;

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
 * {@code GET /api/admin/organisations}: every tenant with its member count, oldest first; and their
 * suspension by slug (its API keys and the nodes it operates are refused: migration V31). The
 * suspension endpoints live here because this class's literal path wins over {@code
 * admin.AdminResource}'s template for {@code /api/admin/organisations/...}.
 */
@Path("/api/admin/organisations")
@RolesAllowed("admin")
@Produces(MediaType.APPLICATION_JSON)
public class AdminOrganisationResource {
  @Inject EntityManager em;
  @Inject io.tensafe.marketplace.admin.SuspensionService suspensions;

  @Operation(
      summary = "Suspend an organisation: its API keys and the nodes it operates stop working")
  @POST
  @Path("/{slug}/suspend")
  public io.tensafe.marketplace.admin.SuspensionState suspend(
      @PathParam("slug") @Size(min = 1, max = 63) String slug) {
    return suspensions.set("organisations", slug, true);
  }

  @Operation(summary = "Lift the suspension of an organisation")
  @POST
  @Path("/{slug}/unsuspend")
  public io.tensafe.marketplace.admin.SuspensionState unsuspend(
      @PathParam("slug") @Size(min = 1, max = 63) String slug) {
    return suspensions.set("organisations", slug, false);
  }

  @Operation(summary = "List the organisations and their members' counts (admins)")
  @GET
  public Page<OrganisationSummary> all(
      @QueryParam("page") @DefaultValue("0") @Min(0) int page,
      @QueryParam("size") @DefaultValue("50") @Min(1) @Max(200) int size) {
    long total =
        ((Number) em.createNativeQuery("SELECT count(*) FROM organisation").getSingleResult())
            .longValue();
    List<OrganisationSummary> items =
        Rows.list(
            em.createNativeQuery(
                    """
                SELECT o.slug, o.display_name,
                       (SELECT count(*) FROM organisation_member m WHERE m.organisation_id = o.id),
                       o.created_at
                FROM organisation o ORDER BY o.created_at, o.slug
                """)
                .setFirstResult(page * size)
                .setMaxResults(size),
            OrganisationSummary.class);
    return new Page<>(items, page, size, total);
  }
}
