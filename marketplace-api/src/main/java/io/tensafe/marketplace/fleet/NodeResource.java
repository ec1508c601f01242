package io.tensafe.marketplace.fleet;

import io.tensafe.marketplace.creator.CreatorService;
import io.tensafe.marketplace.paging.Page;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponseSchema;

/** What inference nodes call, authenticated with the node client's credentials. */
@Path("/api")
public class NodeResource {
  @Inject NodeService nodes;
  @Inject NodeChallenges challenges;
  @Inject CreatorService creators;

  /** The creators' unrevoked signing keys: {@code {"keys": [document, ...]}}. */
  public record CreatorKeys(List<String> keys) {}

  @Operation(summary = "List the registered creator public keys, for nodes to verify packages")
  @GET
  @Path("/node/creator-keys")
  @RolesAllowed("node")
  @Produces(MediaType.APPLICATION_JSON)
  public CreatorKeys creatorKeys() {
    return new CreatorKeys(creators.unrevokedKeyDocuments());
  }

  /**
   * A registration challenge for this credential, fleet and name: a nonce wrapped to the fleet's
   * public key, to be sent back in {@code fleetProof} of the registration within two minutes.
   */
  @Operation(summary = "Ask for a fleet challenge to prove the fleet key at registration")
  @APIResponseSchema(
      value = io.tensafe.marketplace.fleet.NodeChallenge.class,
      responseCode = "201",
      responseDescription = "The challenge, wrapped to the fleet's public key")
  @POST
  @Path("/node/register/challenge")
  @RolesAllowed("node")
  @Consumes(MediaType.APPLICATION_JSON)
  @Produces(MediaType.APPLICATION_JSON)
  public Response challenge(@NotNull @Valid NodeChallengeRequest request) {
    return Response.status(201).entity(challenges.issue(request)).build();
  }

  @Operation(summary = "Register a node with its fleet proof, endpoint and capacity")
  @POST
  @Path("/node/register")
  @RolesAllowed("node")
  @Consumes(MediaType.APPLICATION_JSON)
  @Produces(MediaType.APPLICATION_JSON)
  public NodeView register(@NotNull @Valid NodeRegistration registration) {
    return nodes.register(registration);
  }

  @Operation(summary = "Report that a node is alive and which adapters it holds")
  @POST
  @Path("/node/heartbeat")
  @RolesAllowed("node")
  @Consumes(MediaType.APPLICATION_JSON)
  @Produces(MediaType.APPLICATION_JSON)
  public NodeView heartbeat(@NotNull @Valid NodeHeartbeat heartbeat) {
    return nodes.heartbeat(heartbeat.name(), heartbeat.loadedAdapters());
  }

  @Operation(summary = "List the nodes, their health and load (admins)")
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
