package io.tensafe.marketplace.organisation;

import io.tensafe.marketplace.paging.Page;
import io.tensafe.marketplace.validation.OrganisationSlug;
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
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponseSchema;

/**
 * {@code /api/organisations}: a client's organisations. Create one (the caller owns it), list those
 * the caller belongs to, and, as an owner, add existing users as members or owners.
 */
@Path("/api/organisations")
@RolesAllowed("client")
@Produces(MediaType.APPLICATION_JSON)
public class OrganisationResource {
  @Inject OrganisationService organisations;

  @Operation(summary = "Create an organisation that you own")
  @APIResponseSchema(
      value = io.tensafe.marketplace.organisation.MembershipView.class,
      responseCode = "201",
      responseDescription = "The organisation is created")
  @POST
  @Consumes(MediaType.APPLICATION_JSON)
  public Response create(@NotNull @Valid NewOrganisation request) {
    return Response.status(201).entity(organisations.create(request)).build();
  }

  @Operation(summary = "List the organisations you belong to")
  @GET
  public Page<MembershipView> mine(
      @QueryParam("page") @DefaultValue("0") @Min(0) int page,
      @QueryParam("size") @DefaultValue("50") @Min(1) @Max(200) int size) {
    return Page.of(organisations.mine(), page, size);
  }

  @Operation(summary = "List the members of an organisation you belong to")
  @GET
  @Path("/{slug}/members")
  public Page<MemberView> members(
      @PathParam("slug") @OrganisationSlug String slug,
      @QueryParam("page") @DefaultValue("0") @Min(0) int page,
      @QueryParam("size") @DefaultValue("50") @Min(1) @Max(200) int size) {
    return Page.of(organisations.members(slug), page, size);
  }

  @Operation(summary = "Add a user to an organisation you own")
  @APIResponseSchema(
      value = io.tensafe.marketplace.organisation.MemberView.class,
      responseCode = "201",
      responseDescription = "The member is added")
  @POST
  @Path("/{slug}/members")
  @Consumes(MediaType.APPLICATION_JSON)
  public Response addMember(
      @PathParam("slug") @OrganisationSlug String slug, @NotNull @Valid NewMember request) {
    return Response.status(201).entity(organisations.addMember(slug, request)).build();
  }
}
