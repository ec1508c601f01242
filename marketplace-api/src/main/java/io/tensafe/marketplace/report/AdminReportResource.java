package io.tensafe.marketplace.report;

import io.tensafe.marketplace.problem.ProblemTypes;
import io.tensafe.marketplace.validation.OrganisationSlug;
import io.tensafe.marketplace.validation.PublicId;
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
 * Reports for admins ({@code ?from&to&format=json|csv|pdf}; ADR 0013): {@code GET
 * /api/admin/reports/revenue}, the platform's revenue per adapter, creator, client, node and day;
 * {@code /invoice?organisation=slug} and {@code /payout?creator=id}, any party's invoice or
 * statement. A class of its own: {@code /api/admin/{kind}/{id}} would otherwise take these paths.
 */
@Path("/api/admin/reports")
@RolesAllowed("admin")
@Produces({"application/json", "text/csv", "application/pdf"})
@APIResponse(
    responseCode = "200",
    description = "The report in the requested format",
    content =
        @Content(mediaType = "application/json", schema = @Schema(implementation = Report.class)))
public class AdminReportResource {
  @Inject ReportService reports;

  @Operation(summary = "Export the revenue report for a period (JSON, CSV or PDF)")
  @GET
  @Path("/revenue")
  public Response revenue(@BeanParam ReportPeriod period) {
    return reports.revenue(period);
  }

  @Operation(summary = "Export a client organisation's invoice for a period (JSON, CSV or PDF)")
  @GET
  @Path("/invoice")
  public Response invoice(
      @QueryParam("organisation") @OrganisationSlug String organisation,
      @BeanParam ReportPeriod period) {
    if (organisation == null) {
      throw ProblemTypes.validation("organisation (a client organisation's slug) is required");
    }
    return reports.invoice(reports.organisationBySlug(organisation), period);
  }

  @Operation(summary = "Export a creator's payout statement for a period (JSON, CSV or PDF)")
  @GET
  @Path("/payout")
  public Response payout(
      @QueryParam("creator") @PublicId String creator, @BeanParam ReportPeriod period) {
    if (creator == null) {
      throw ProblemTypes.validation("creator (a creator id) is required");
    }
    return reports.payout(reports.creatorByRef(creator), period);
  }
}
