package io.tensafe.marketplace.report;

import io.tensafe.marketplace.organisation.OrganisationService;
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
 * {@code GET /api/client/reports/invoice[?organisation=slug&from&to&format=json|csv|pdf]}: the
 * invoice of the caller's organisation (or of another they belong to; others read as not found),
 * line items per adapter version (ADR 0013).
 */
@Path("/api/client/reports")
@RolesAllowed("client")
public class ClientReportResource {
  @Inject ReportService reports;
  @Inject OrganisationService organisations;

  @Operation(summary = "Export your organisation's invoice for a period (JSON, CSV or PDF)")
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
    return reports.invoice(organisations.require(organisation).organisationId(), from, to, format);
  }
}
