package io.tensafe.marketplace.report;

import io.tensafe.marketplace.problem.ProblemTypes;
import io.tensafe.marketplace.validation.PublicId;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.constraints.Pattern;
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
 * statement.
 */
@Path("/api/admin/reports")
@RolesAllowed("admin")
public class AdminReportResource {
  @Inject ReportService reports;

  @Operation(summary = "Export the revenue report for a period (JSON, CSV or PDF)")
  @APIResponse(
      responseCode = "200",
      description = "The report in the requested format",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(implementation = io.tensafe.marketplace.report.Report.class)))
  @GET
  @Path("/revenue")
  @Produces({"application/json", "text/csv", "application/pdf"})
  public Response revenue(
      @QueryParam("from") String from,
      @QueryParam("to") String to,
      @QueryParam("format") String format) {
    return reports.revenue(from, to, format);
  }

  @Operation(summary = "Export a client organisation's invoice for a period (JSON, CSV or PDF)")
  @APIResponse(
      responseCode = "200",
      description = "The invoice in the requested format",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(implementation = io.tensafe.marketplace.report.Report.class)))
  @GET
  @Path("/invoice")
  @Produces({"application/json", "text/csv", "application/pdf"})
  public Response invoice(
      @QueryParam("organisation") @Pattern(regexp = "[a-z0-9][a-z0-9-]{1,62}") String organisation,
      @QueryParam("from") String from,
      @QueryParam("to") String to,
      @QueryParam("format") String format) {
    if (organisation == null) {
      throw ProblemTypes.validation("organisation (a client organisation's slug) is required");
    }
    return reports.invoice(reports.organisationBySlug(organisation), from, to, format);
  }

  @Operation(summary = "Export a creator's payout statement for a period (JSON, CSV or PDF)")
  @APIResponse(
      responseCode = "200",
      description = "The statement in the requested format",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(implementation = io.tensafe.marketplace.report.Report.class)))
  @GET
  @Path("/payout")
  @Produces({"application/json", "text/csv", "application/pdf"})
  public Response payout(
      @QueryParam("creator") @PublicId String creator,
      @QueryParam("from") String from,
      @QueryParam("to") String to,
      @QueryParam("format") String format) {
    if (creator == null) {
      throw ProblemTypes.validation("creator (a creator id) is required");
    }
    return reports.payout(reports.creatorByRef(creator), from, to, format);
  }
}
