package io.tensafe.marketplace.web;

import io.quarkus.security.identity.SecurityIdentity;
import java.util.ArrayList;
import java.util.List;

/**
 * Who is looking at a page, and so which links the navigation shows: an admin sees every admin
 * page, a creator their own pages; someone with both roles sees both. Navigation is a convenience
 * only: every page and every API call checks the role again on the server.
 *
 * @param username the signed-in person's Keycloak user name
 * @param roles the roles that matter here, comma-separated, for display
 */
public record Viewer(
    String username, boolean admin, boolean creator, String roles, List<NavLink> links) {

  /** One entry of the main navigation; {@code href} is a path on this server. */
  public record NavLink(String href, String label) {}

  static Viewer of(SecurityIdentity identity, String username) {
    boolean admin = identity.hasRole("admin");
    boolean creator = identity.hasRole("creator");
    List<NavLink> links = new ArrayList<>();
    List<String> roles = new ArrayList<>();
    if (admin) {
      roles.add("admin");
      links.add(new NavLink("/admin", "Overview"));
      links.add(new NavLink("/admin/nodes", "Nodes"));
      links.add(new NavLink("/admin/adapters", "Adapters"));
      links.add(new NavLink("/admin/clients", "Clients"));
      links.add(new NavLink("/admin/billing", "Billing"));
      links.add(new NavLink("/admin/audit", "Audit log"));
    }
    if (creator) {
      roles.add("creator");
      links.add(new NavLink("/creator", "My adapters"));
      links.add(new NavLink("/creator/upload", "Upload"));
      links.add(new NavLink("/creator/sales", "Sales"));
    }
    return new Viewer(username, admin, creator, String.join(", ", roles), List.copyOf(links));
  }
}
