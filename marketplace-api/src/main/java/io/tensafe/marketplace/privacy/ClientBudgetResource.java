package io.tensafe.marketplace.privacy;

import io.tensafe.marketplace.organisation.OrganisationService;
import io.tensafe.marketplace.validation.OrganisationSlug;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * {@code GET /api/client/budgets[?organisation=slug]}: the privacy budgets of the caller's
 * organisation (or another they belong to) whose period has not ended: ε limit and spent per
 * adapter, and when each resets.
 */
@Path("/api/client/budgets")
@RolesAllowed("client")
@Produces(MediaType.APPLICATION_JSON)
public class ClientBudgetResource {
  @Inject BudgetTopUps budgets;
  @Inject OrganisationService organisations;

  @Operation(summary = "List your organisation's privacy budgets: ε limit, spent and period")
  @GET
  public List<BudgetView> mine(@QueryParam("organisation") @OrganisationSlug String organisation) {
    return budgets.current(organisations.require(organisation).organisationId(), Instant.now());
  }
}
