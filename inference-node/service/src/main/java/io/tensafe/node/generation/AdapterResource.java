package io.tensafe.node.generation;

import io.smallrye.common.annotation.Blocking;
import io.tensafe.node.adapter.AdapterKey;
import io.tensafe.node.adapter.LoadedAdapter;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;

/**
 * {@code GET /v1/adapters}: the versions this node holds. {@code PUT /v1/adapters/{id}} with {@code
 * {"version": "x.y.z"}}: loads that version and makes it the one requests naming only the id get
 * (hot-swap; requests already running finish on the version they started with).
 */
@Path("/v1/adapters")
public class AdapterResource {
  @Inject ModelService model;

  /** The body of a hot-swap. */
  public record Activation(String version) {}

  /** One held version; {@code active} when it is its id's current version. */
  public record HeldAdapter(String id, String version, boolean active) {}

  @GET
  @Produces(MediaType.APPLICATION_JSON)
  public List<HeldAdapter> held() {
    return model.heldAdapters().stream()
        .map(k -> new HeldAdapter(k.id(), k.version(), model.isActive(k)))
        .toList();
  }

  @PUT
  @Path("/{id}")
  @Consumes(MediaType.APPLICATION_JSON)
  @Produces(MediaType.APPLICATION_JSON)
  @Blocking
  public HeldAdapter activate(@PathParam("id") String id, Activation body) {
    if (body == null || body.version() == null) {
      throw NodeProblem.validation("a JSON body {\"version\": \"x.y.z\"} is required");
    }
    AdapterKey key;
    try {
      key = new AdapterKey(id, body.version());
    } catch (IllegalArgumentException e) {
      throw NodeProblem.validation(e.getMessage());
    }
    LoadedAdapter loaded = model.activate(key);
    return new HeldAdapter(loaded.key().id(), loaded.key().version(), true);
  }
}
