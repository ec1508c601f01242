package io.tensafe.marketplace.fleet;

import io.tensafe.marketplace.creator.CreatorService;
import io.tensafe.marketplace.paging.Page;
import io.tensafe.marketplace.usage.NodeUsageReport;
import io.tensafe.marketplace.usage.UsageAck;
import io.tensafe.marketplace.usage.UsageEvents;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;

/** What inference nodes call, authenticated with the node client's credentials. */
@Path("/api")
public class NodeResource {
  @Inject NodeService nodes;
  @Inject NodeChallenges challenges;
  @Inject PackageDownload downloads;
  @Inject CreatorService creators;
  @Inject UsageEvents usage;

  /** The creators' unrevoked signing keys: {@code {"keys": [document, ...]}}. */
  public record CreatorKeys(List<String> keys) {}

  @GET
  @Path("/node/creator-keys")
  @RolesAllowed("node")
  @Produces(MediaType.APPLICATION_JSON)
  public CreatorKeys creatorKeys() {
    return new CreatorKeys(creators.unrevokedKeyDocuments());
  }

  /**
   * A node's usage report: 201 when recorded, 200 when the same report was recorded before, 409
   * when the request id holds a different report.
   */
  @POST
  @Path("/node/usage")
  @RolesAllowed("node")
  @Consumes(MediaType.APPLICATION_JSON)
  @Produces(MediaType.APPLICATION_JSON)
  public Response usage(@NotNull @Valid NodeUsageReport report) {
    UsageAck ack = usage.record(report);
    return Response.status(ack.status().equals("recorded") ? 201 : 200).entity(ack).build();
  }

  /**
   * A registration challenge for this credential, fleet and name: a nonce wrapped to the fleet's
   * public key, to be sent back in {@code fleetProof} of the registration within two minutes.
   */
  @POST
  @Path("/node/register/challenge")
  @RolesAllowed("node")
  @Consumes(MediaType.APPLICATION_JSON)
  @Produces(MediaType.APPLICATION_JSON)
  public Response challenge(@NotNull @Valid NodeChallengeRequest request) {
    return Response.status(201).entity(challenges.issue(request)).build();
  }

  @POST
  @Path("/node/register")
  @RolesAllowed("node")
  @Consumes(MediaType.APPLICATION_JSON)
  @Produces(MediaType.APPLICATION_JSON)
  public NodeView register(@NotNull @Valid NodeRegistration registration) {
    return nodes.register(registration);
  }

  @POST
  @Path("/node/heartbeat")
  @RolesAllowed("node")
  @Consumes(MediaType.APPLICATION_JSON)
  @Produces(MediaType.APPLICATION_JSON)
  public NodeView heartbeat(@NotNull @Valid NodeHeartbeat heartbeat) {
    return nodes.heartbeat(heartbeat.name(), heartbeat.loadedAdapters());
  }

  /** Package bytes for a node of the package's fleet; ETag and single byte ranges supported. */
  @GET
  @Path("/node/packages/{adapterId}/{version}")
  @RolesAllowed("node")
  @Produces({MediaType.APPLICATION_OCTET_STREAM, "application/problem+json"})
  public Response download(
      @QueryParam("node") @NotNull @Pattern(regexp = "[a-z0-9][a-z0-9._-]{0,63}") String node,
      @PathParam("adapterId") @Pattern(regexp = "[a-z0-9][a-z0-9._-]{0,63}") String adapterId,
      @PathParam("version") @Pattern(regexp = "[0-9]{1,9}\\.[0-9]{1,9}\\.[0-9]{1,9}")
          String version,
      @HeaderParam("Range") String range,
      @HeaderParam("If-None-Match") String ifNoneMatch) {
    return downloads.serve(node, adapterId, version, range, ifNoneMatch);
  }

  @GET
  @Path("/admin/nodes")
  @RolesAllowed("admin")
  @Produces(MediaType.APPLICATION_JSON)
  public Page<NodeView> all(
      @QueryParam("page") @DefaultValue("0") @Min(0) int page,
      @QueryParam("size") @DefaultValue("50") @Min(1) @Max(200) int size) {
    return Page.of(nodes.all(), page, size);
  }
}
