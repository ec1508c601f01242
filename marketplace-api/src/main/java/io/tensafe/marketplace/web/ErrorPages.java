package io.tensafe.marketplace.web;

import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import io.tensafe.marketplace.problem.ProblemMappers;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.core.MediaType;
import java.util.Map;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;

/**
 * Shows a page's error as a page. Errors still come from the one problem mapping ({@link
 * ProblemMappers}); for a page ({@code /admin}, {@code /creator}) opened in a browser this filter
 * renders that problem's title and detail as HTML with the same status, so a creator who opens an
 * admin page by URL reads "Forbidden: your role does not allow this", not JSON.
 */
public class ErrorPages {
  @CheckedTemplate
  static class Templates {
    static native TemplateInstance error(int status, String title, String detail);
  }

  @ServerResponseFilter
  public void renderProblemsOfPages(
      ContainerRequestContext request, ContainerResponseContext response) {
    if (!WebTenantResolver.isPage(request.getUriInfo().getPath())
        || response.getMediaType() == null
        || !ProblemMappers.MEDIA_TYPE.equals(response.getMediaType().toString())
        || !(response.getEntity() instanceof Map<?, ?> problem)) {
      return;
    }
    String title = String.valueOf(problem.get("title"));
    String detail = problem.get("detail") == null ? "" : String.valueOf(problem.get("detail"));
    response.setEntity(
        Templates.error(response.getStatus(), title, detail).render(),
        null,
        MediaType.TEXT_HTML_TYPE.withCharset("UTF-8"));
  }
}
