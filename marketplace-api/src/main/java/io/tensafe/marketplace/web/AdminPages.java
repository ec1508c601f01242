package io.tensafe.marketplace.web;

import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import io.tensafe.marketplace.apikey.AdminApiKeyResource;
import io.tensafe.marketplace.apikey.ApiKeyView;
import io.tensafe.marketplace.audit.AdminAuditResource;
import io.tensafe.marketplace.audit.AuditSearch;
import io.tensafe.marketplace.dashboard.AdminOverviewResource;
import io.tensafe.marketplace.dashboard.DashboardQueries;
import io.tensafe.marketplace.fleet.NodeResource;
import io.tensafe.marketplace.fleet.NodeView;
import io.tensafe.marketplace.paging.Page;
import io.tensafe.marketplace.privacy.AdminBudgetResource;
import io.tensafe.marketplace.privacy.BudgetView;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * The admin pages ({@code /admin/...}). Each is rendered on the server from the same resources and
 * ledgers the JSON API answers from; a page's actions call the JSON API from the browser (ADR
 * 0014). Only admins may open them, whatever the navigation shows.
 */
@Path("/admin")
@RolesAllowed("admin")
@Produces(MediaType.TEXT_HTML)
public class AdminPages {
  @CheckedTemplate
  static class Templates {
    static native TemplateInstance overview(Viewer viewer, String current, OverviewPage page);

    static native TemplateInstance nodes(Viewer viewer, String current, List<NodeRow> nodes);

    static native TemplateInstance adapters(
        Viewer viewer, String current, DayRange period, List<AdapterRow> adapters);

    static native TemplateInstance clients(
        Viewer viewer, String current, DayRange period, List<ClientRow> clients, String reference);

    static native TemplateInstance billing(
        Viewer viewer,
        String current,
        DayRange period,
        List<DashboardQueries.ClientUsage> invoices,
        List<DashboardQueries.CreatorPayout> statements);

    static native TemplateInstance audit(
        Viewer viewer, String current, String q, Page<AuditSearch.Row> rows, long pages);
  }

  /** A node with its live load and HE cost. */
  public record NodeRow(NodeView node, DashboardQueries.NodeLoad load) {
    public String status() {
      return node.suspended() ? "suspended" : node.healthy() ? "healthy" : "unhealthy";
    }

    public String backend() {
      return "gpu".equals(node.accelerator()) ? "CUDA (GPU)" : "CPU";
    }
  }

  /** An adapter with its sales in the period, per currency. */
  public record AdapterRow(
      DashboardQueries.AdapterRow adapter, List<DashboardQueries.AdapterSales> sales) {
    public long routeHits() {
      return sales.stream().mapToLong(DashboardQueries.AdapterSales::routeHits).sum();
    }
  }

  /** A client organisation: usage, API keys (prefixes only) and DP budgets. */
  public record ClientRow(
      String organisation,
      List<DashboardQueries.ClientUsage> usage,
      List<ApiKeyView> keys,
      List<BudgetView> budgets,
      io.tensafe.marketplace.autocap.AutoCapView autoCap) {}

  @Inject CurrentViewer viewer;
  @Inject AdminOverviewResource overview;
  @Inject NodeResource nodes;
  @Inject DashboardQueries dashboard;
  @Inject AdminApiKeyResource apiKeys;
  @Inject AdminBudgetResource budgets;
  @Inject io.tensafe.marketplace.autocap.AutoPriceCaps autoCaps;
  @Inject AdminAuditResource audit;

  /** Every item of a paged admin listing, 200 at a time. */
  private static <T> List<T> everyPage(
      java.util.function.BiFunction<Integer, Integer, Page<T>> listing) {
    List<T> all = new ArrayList<>();
    for (int page = 0; ; page++) {
      Page<T> next = listing.apply(page, 200);
      all.addAll(next.items());
      if (next.items().size() < 200 || all.size() >= next.total()) {
        return all;
      }
    }
  }

  @GET
  public String overview(@QueryParam("days") @DefaultValue("14") @Min(1) @Max(90) int days) {
    return Templates.overview(
            viewer.get(), "/admin", OverviewPage.of(overview.overview(days), days))
        .render();
  }

  @GET
  @Path("/nodes")
  public String nodes() {
    Map<String, DashboardQueries.NodeLoad> loads = dashboard.nodeLoads();
    List<NodeRow> rows =
        everyPage(nodes::all).stream()
            .map(n -> new NodeRow(n, loads.getOrDefault(n.id(), DashboardQueries.NodeLoad.NONE)))
            .toList();
    return Templates.nodes(viewer.get(), "/admin/nodes", rows).render();
  }

  @GET
  @Path("/adapters")
  public String adapters(@QueryParam("days") @DefaultValue("30") @Min(1) @Max(366) int days) {
    DayRange period = DayRange.lastDays(days);
    Map<String, List<DashboardQueries.AdapterSales>> sales =
        dashboard.adapterSales(period.from(), period.to()).stream()
            .collect(Collectors.groupingBy(DashboardQueries.AdapterSales::adapterId));
    List<AdapterRow> rows =
        dashboard.adapters().stream()
            .map(a -> new AdapterRow(a, sales.getOrDefault(a.adapterId(), List.of())))
            .toList();
    return Templates.adapters(viewer.get(), "/admin/adapters", period, rows).render();
  }

  @GET
  @Path("/clients")
  public String clients(@QueryParam("days") @DefaultValue("30") @Min(1) @Max(366) int days) {
    DayRange period = DayRange.lastDays(days);
    Map<String, List<DashboardQueries.ClientUsage>> usage =
        dashboard.clientUsage(period.from(), period.to()).stream()
            .collect(Collectors.groupingBy(DashboardQueries.ClientUsage::organisation));
    Map<String, List<ApiKeyView>> keys =
        apiKeys.all(0, 200).items().stream()
            .collect(Collectors.groupingBy(ApiKeyView::organisation));
    List<ClientRow> rows = new ArrayList<>();
    for (String org : dashboard.clientOrganisations()) {
      rows.add(
          new ClientRow(
              org,
              usage.getOrDefault(org, List.of()),
              keys.getOrDefault(org, List.of()),
              budgets.of(org),
              autoCaps.bySlug(org)));
    }
    String reference = "ui-" + UUID.randomUUID().toString().substring(0, 13);
    return Templates.clients(viewer.get(), "/admin/clients", period, rows, reference).render();
  }

  @GET
  @Path("/billing")
  public String billing(@QueryParam("from") String from, @QueryParam("to") String to) {
    DayRange period = DayRange.parse(from, to);
    return Templates.billing(
            viewer.get(),
            "/admin/billing",
            period,
            dashboard.clientUsage(period.from(), period.to()),
            dashboard.creatorPayouts(period.from(), period.to()))
        .render();
  }

  @GET
  @Path("/audit")
  public String audit(
      @QueryParam("q") @Size(max = 200) String q,
      @QueryParam("page") @DefaultValue("0") @Min(0) int page) {
    Page<AuditSearch.Row> rows = audit.search(q, page, 50);
    long pages = Math.max(1, (rows.total() + 49) / 50);
    return Templates.audit(viewer.get(), "/admin/audit", q == null ? "" : q, rows, pages).render();
  }
}
