package io.tensafe.node.privatesession;

import io.smallrye.common.annotation.Blocking;
import io.tensafe.node.generation.NodeProblem;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.InputStream;
import java.util.UUID;

/**
 * Private-mode sessions (ADR 0017), for the marketplace only (the dispatch token): {@code POST
 * /v1/private/sessions} opens one (JSON {@link SessionOpening}, answers {@link SessionOpened});
 * {@code POST /v1/private/sessions/{id}/frames} answers one binary client frame with the node's
 * frame ({@code application/octet-stream}, at most {@code tensafe.node.private.max-frame-mb}, read
 * no further than that); {@code DELETE /v1/private/sessions/{id}} closes it.
 */
@Path("/v1/private/sessions")
public class PrivateSessionResource {
  @Inject PrivateSessions sessions;

  @POST
  @Consumes(MediaType.APPLICATION_JSON)
  @Produces(MediaType.APPLICATION_JSON)
  @Blocking
  public Response open(SessionOpening request) {
    if (request == null) {
      throw NodeProblem.validation("a JSON body is required");
    }
    return Response.status(201).entity(sessions.open(request)).build();
  }

  @POST
  @Path("/{id}/frames")
  @Consumes(MediaType.APPLICATION_OCTET_STREAM)
  @Produces(MediaType.APPLICATION_OCTET_STREAM)
  @Blocking
  public byte[] frame(@PathParam("id") String id, InputStream body) throws IOException {
    int max = sessions.maxFrameBytes();
    byte[] bytes = body.readNBytes(max + 1);
    if (bytes.length > max) {
      throw NodeProblem.validation("a frame may have at most " + max + " bytes");
    }
    return sessions.frame(uuid(id), bytes);
  }

  @DELETE
  @Path("/{id}")
  public Response close(@PathParam("id") String id) {
    if (!sessions.close(uuid(id))) {
      throw NodeProblem.notFound("no open private session " + id);
    }
    return Response.noContent().build();
  }

  private static UUID uuid(String id) {
    try {
      return UUID.fromString(id);
    } catch (IllegalArgumentException e) {
      throw NodeProblem.notFound("no private session " + id);
    }
  }
}
