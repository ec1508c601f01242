package io.tensafe.webui;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Everything the browser loads ships in this jar: no CDN, no remote fonts, no dangling links. */
class BundledAssetsTest {
  private static final Pattern REMOTE = Pattern.compile("(?i)(https?:)?//[a-z0-9.-]+\\.[a-z]{2,}");

  /** Paths marketplace-api serves itself: the pages, the JSON API, sign-out and the root. */
  private static final Pattern SERVED =
      Pattern.compile("/(admin|creator)(/[a-z/-]*)?$|/api/|/logout$|/$");

  private static final Pattern LOCAL_REF = Pattern.compile("(?:href|src)=\"(/[^\"#?]*)\"");

  private static Path webRoot() throws URISyntaxException {
    return Path.of(BundledAssetsTest.class.getResource("/META-INF/resources").toURI());
  }

  private static Path templates() throws URISyntaxException {
    return Path.of(BundledAssetsTest.class.getResource("/templates").toURI());
  }

  /** Static files and the pages' Qute templates. */
  private static List<Path> files() throws IOException, URISyntaxException {
    try (Stream<Path> assets = Files.walk(webRoot());
        Stream<Path> pages = Files.walk(templates())) {
      return Stream.concat(assets, pages).filter(Files::isRegularFile).toList();
    }
  }

  @Test
  void assets_anyFile_referencesNoRemoteHost() throws Exception {
    List<Path> files = files();
    assertFalse(files.isEmpty());
    for (Path file : files) {
      String text = Files.readString(file, StandardCharsets.UTF_8);
      Matcher m = REMOTE.matcher(text);
      assertFalse(m.find(), () -> file + " references a remote host: " + m.group());
    }
  }

  @Test
  void pages_localLinks_resolveToBundledFilesOrServiceEndpoints() throws Exception {
    Path root = webRoot();
    for (Path page : files()) {
      if (!page.toString().endsWith(".html")) {
        continue;
      }
      Matcher m = LOCAL_REF.matcher(Files.readString(page, StandardCharsets.UTF_8));
      while (m.find()) {
        String ref = m.group(1);
        if (ref.startsWith("/q/")) {
          continue; // served by the Quarkus management endpoints, not by this jar
        }
        if (SERVED.matcher(ref).lookingAt()) {
          continue; // pages and API of marketplace-api
        }
        assertTrue(
            Files.isRegularFile(root.resolve(ref.substring(1))), page + " links to missing " + ref);
      }
    }
  }
}
