package io.tensafe.marketplace.web;

import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import io.tensafe.marketplace.adapter.CreatorAdapterResource;
import io.tensafe.marketplace.adapter.VersionView;
import io.tensafe.marketplace.dashboard.DashboardQueries;
import io.tensafe.marketplace.identity.CurrentUser;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.List;

/**
 * The creator pages ({@code /creator/...}): a creator's own adapters, prices, uploads and sales,
 * never anyone else's (every query is scoped to the signed-in creator's organisation).
 */
@Path("/creator")
@RolesAllowed("creator")
@Produces(MediaType.TEXT_HTML)
public class CreatorPages {
  @CheckedTemplate
  static class Templates {
    static native TemplateInstance adapters(
        Viewer viewer,
        String current,
        List<VersionView> versions,
        List<DashboardQueries.ScheduledPrice> scheduled);

    static native TemplateInstance upload(
        Viewer viewer,
        String current,
        io.tensafe.marketplace.creator.CreatorProfile profile,
        List<io.tensafe.marketplace.fleet.FleetView> fleets);

    static native TemplateInstance sales(Viewer viewer, String current, SalesPage page);
  }

  @Inject CurrentViewer viewer;
  @Inject CurrentUser user;
  @Inject CreatorAdapterResource adapters;
  @Inject DashboardQueries dashboard;
  @Inject io.tensafe.marketplace.creator.CreatorService creators;
  @Inject io.tensafe.marketplace.fleet.FleetService fleets;

  @GET
  public String adapters() {
    return Templates.adapters(
            viewer.get(),
            "/creator",
            adapters.mine(0, 200).items(),
            dashboard.scheduledPrices(user.user().organisationId))
        .render();
  }

  @GET
  @Path("/upload")
  public String upload() {
    return Templates.upload(viewer.get(), "/creator/upload", creators.profile(), fleets.active())
        .render();
  }

  @GET
  @Path("/sales")
  public String sales(@QueryParam("days") @DefaultValue("30") @Min(1) @Max(366) int days) {
    DayRange period = DayRange.lastDays(days);
    List<DashboardQueries.CreatorDay> rows =
        dashboard.creatorDays(user.user().organisationId, period.from(), period.to());
    return Templates.sales(viewer.get(), "/creator/sales", SalesPage.of(period, rows)).render();
  }
}
