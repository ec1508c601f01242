package io.tensafe.marketplace.adapter;

import io.tensafe.marketplace.creator.CreatorService;
import io.tensafe.marketplace.paging.Page;
import io.tensafe.marketplace.validation.PublicId;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Pattern;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponseSchema;

/** {@code /api/creator/adapters}: a creator's own adapters and versions; publish and unpublish. */
@Path("/api/creator/adapters")
@RolesAllowed("creator")
@Produces(MediaType.APPLICATION_JSON)
public class CreatorAdapterResource {
  @Inject CreatorService creators;
  @Inject VersionQueries queries;
  @Inject PublishService publishing;
  @Inject PriceService prices;

  @Operation(summary = "List your adapter versions, their state and prices")
  @GET
  public Page<VersionView> mine(
      @QueryParam("page") @DefaultValue("0") @Min(0) int page,
      @QueryParam("size") @DefaultValue("50") @Min(1) @Max(200) int size) {
    return creators
        .currentCreator()
        .map(c -> queries.ofCreator(c.id, page, size))
        .orElseGet(() -> new Page<>(java.util.List.of(), page, size, 0));
  }

  @Operation(summary = "Publish a draft version so clients can use it")
  @POST
  @Path("/{adapterId}/versions/{version}/publish")
  public VersionState publish(
      @PathParam("adapterId") @PublicId String adapterId,
      @PathParam("version") @Pattern(regexp = "[0-9]{1,9}\\.[0-9]{1,9}\\.[0-9]{1,9}")
          String version) {
    return publishing.setState(adapterId, version, "published");
  }

  /** Schedules a price change; it takes effect at {@code effectiveFrom}, never before. */
  @Operation(
      summary =
          "Schedule a new price for a version (now, or later; a rise needs the notice period)")
  @APIResponseSchema(
      value = io.tensafe.marketplace.adapter.PriceChange.class,
      responseCode = "201",
      responseDescription = "The price is scheduled")
  @POST
  @Path("/{adapterId}/versions/{version}/prices")
  @jakarta.ws.rs.Consumes(MediaType.APPLICATION_JSON)
  public jakarta.ws.rs.core.Response schedulePrice(
      @PathParam("adapterId") @PublicId String adapterId,
      @PathParam("version") @Pattern(regexp = "[0-9]{1,9}\\.[0-9]{1,9}\\.[0-9]{1,9}")
          String version,
      @jakarta.validation.constraints.NotNull @jakarta.validation.Valid PriceChange change) {
    return jakarta.ws.rs.core.Response.status(201)
        .entity(prices.schedule(adapterId, version, change))
        .build();
  }

  @Operation(summary = "Withdraw a published version from new requests")
  @POST
  @Path("/{adapterId}/versions/{version}/unpublish")
  public VersionState unpublish(
      @PathParam("adapterId") @PublicId String adapterId,
      @PathParam("version") @Pattern(regexp = "[0-9]{1,9}\\.[0-9]{1,9}\\.[0-9]{1,9}")
          String version) {
    return publishing.setState(adapterId, version, "unpublished");
  }
}
