package io.tensafe.marketplace.report;

import io.tensafe.marketplace.creator.CreatorService;
import io.tensafe.marketplace.organisation.OrganisationService;
import io.tensafe.marketplace.problem.ProblemTypes;
import io.tensafe.marketplace.validation.OrganisationSlug;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.BeanParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

/**
 * A client's or creator's own billing reports ({@code ?from&to&format=json|csv|pdf}; ADR 0013):
 *
 * <ul>
 *   <li>{@code GET /api/client/reports/invoice[?organisation=slug]}: the invoice of the caller's
 *       organisation (or of another they belong to; others read as not found), line items per
 *       adapter version;
 *   <li>{@code GET /api/creator/reports/payout}: the calling creator's payout statement, per
 *       adapter version with the creator's and the platform's shares;
 * </ul>
 *
 * <p>Admins' reports are {@link AdminReportResource}'s.
 */
@Path("/api")
@Produces({"application/json", "text/csv", "application/pdf"})
@APIResponse(
    responseCode = "200",
    description = "The report in the requested format",
    content =
        @Content(mediaType = "application/json", schema = @Schema(implementation = Report.class)))
public class OwnReportResource {
  @Inject ReportService reports;
  @Inject OrganisationService organisations;
  @Inject CreatorService creators;

  @Operation(summary = "Export your organisation's invoice for a period (JSON, CSV or PDF)")
  @GET
  @Path("/client/reports/invoice")
  @RolesAllowed("client")
  public Response ownInvoice(
      @QueryParam("organisation") @OrganisationSlug String organisation,
      @BeanParam ReportPeriod period) {
    return reports.invoice(organisations.require(organisation).organisationId(), period);
  }

  @Operation(summary = "Export your payout statement for a period (JSON, CSV or PDF)")
  @GET
  @Path("/creator/reports/payout")
  @RolesAllowed("creator")
  public Response ownPayout(@BeanParam ReportPeriod period) {
    return reports.payout(
        creators
            .currentCreator()
            .map(c -> c.id)
            .orElseThrow(
                () ->
                    ProblemTypes.notFound(
                        "creator profile (register a signing key to become a creator)")),
        period);
  }
}
