package io.tensafe.marketplace.usage;

import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

/**
 * {@code POST /api/node/usage}: nodes deliver their usage reports here (ingestion belongs to the
 * usage ledger, not to the fleet registry).
 */
@Path("/api")
public class NodeUsageResource {
  @Inject UsageEvents usage;

  /**
   * A node's usage report: 201 when recorded, 200 when the same report was recorded before, 409
   * when the request id holds a different report.
   */
  @Operation(
      summary = "Report the usage of one request (a node's outbox delivers each once or more)")
  @APIResponse(
      responseCode = "201",
      description = "The report was recorded and billed",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(implementation = UsageAck.class)))
  @APIResponse(
      responseCode = "200",
      description = "The report was known already; nothing changed",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(implementation = UsageAck.class)))
  @POST
  @Path("/node/usage")
  @RolesAllowed("node")
  @Consumes(MediaType.APPLICATION_JSON)
  @Produces(MediaType.APPLICATION_JSON)
  public Response usage(@NotNull @Valid NodeUsageReport report) {
    UsageAck ack = usage.record(report);
    return Response.status(ack.status().equals("recorded") ? 201 : 200).entity(ack).build();
  }
}
