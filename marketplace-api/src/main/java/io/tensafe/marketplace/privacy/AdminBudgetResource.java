package io.tensafe.marketplace.privacy;

import io.tensafe.marketplace.identity.CurrentUser;
import io.tensafe.marketplace.problem.ProblemTypes;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Instant;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

/**
 * Privacy budgets for admins: {@code GET /api/admin/budgets?organisation=slug} lists an
 * organisation's current budgets; {@code POST /api/admin/budgets/top-ups} raises one for the period
 * in force (201, or 200 for a replayed reference), audited.
 */
@Path("/api/admin/budgets")
@RolesAllowed("admin")
@Produces(MediaType.APPLICATION_JSON)
public class AdminBudgetResource {
  @Inject BudgetTopUps budgets;
  @Inject CurrentUser current;

  @Operation(summary = "List a client organisation's privacy budgets (admins)")
  @GET
  public List<BudgetView> of(
      @QueryParam("organisation") @Pattern(regexp = "[a-z0-9][a-z0-9-]{1,62}")
          String organisation) {
    if (organisation == null) {
      throw ProblemTypes.validation("organisation (a client organisation's slug) is required");
    }
    return budgets.current(budgets.organisation(organisation), Instant.now());
  }

  @Operation(summary = "Top up a client's privacy budget by an amount of ε (once per reference)")
  @APIResponse(
      responseCode = "201",
      description = "The top-up was applied",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(implementation = io.tensafe.marketplace.privacy.BudgetView.class)))
  @APIResponse(
      responseCode = "200",
      description = "The reference was used before for this budget; nothing changed",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(implementation = io.tensafe.marketplace.privacy.BudgetView.class)))
  @POST
  @Path("/top-ups")
  @Consumes(MediaType.APPLICATION_JSON)
  public Response topUp(@NotNull @Valid TopUpRequest request) {
    BudgetTopUps.Result result = budgets.topUp(current.user(), request, Instant.now());
    return Response.status(result.created() ? 201 : 200).entity(result.budget()).build();
  }
}
