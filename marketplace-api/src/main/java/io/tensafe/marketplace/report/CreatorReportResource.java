package io.tensafe.marketplace.report;

import io.tensafe.marketplace.creator.CreatorService;
import io.tensafe.marketplace.problem.ProblemTypes;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
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
 * {@code GET /api/creator/reports/payout[?from&to&format=json|csv|pdf]}: the calling creator's
 * payout statement, per adapter version with the creator's and the platform's shares (ADR 0013).
 */
@Path("/api/creator/reports")
@RolesAllowed("creator")
public class CreatorReportResource {
  @Inject ReportService reports;
  @Inject CreatorService creators;

  @Operation(summary = "Export your payout statement for a period (JSON, CSV or PDF)")
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
      @QueryParam("from") String from,
      @QueryParam("to") String to,
      @QueryParam("format") String format) {
    return reports.payout(
        creators
            .currentCreator()
            .map(c -> c.id)
            .orElseThrow(
                () ->
                    ProblemTypes.notFound(
                        "creator profile (register a signing key to become a creator)")),
        from,
        to,
        format);
  }
}
