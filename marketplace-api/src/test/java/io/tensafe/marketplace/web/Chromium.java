package io.tensafe.marketplace.web;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Debian's Chromium driven by Playwright for Java (ADR 0014): Playwright never downloads a browser
 * ({@code PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD}); {@code ./tensafe test} installs the package. Pages
 * are signed in through the real Keycloak login form. Screenshots go to {@code target/screenshots/}
 * for review.
 */
final class Chromium implements AutoCloseable {
  static final Path SCREENSHOTS = Path.of("target", "screenshots");
  private static final Path EXECUTABLE = Path.of("/usr/bin/chromium");

  private final Playwright playwright;
  private final Browser browser;
  private final String base;

  private Chromium(Playwright playwright, Browser browser, String base) {
    this.playwright = playwright;
    this.browser = browser;
    this.base = base;
  }

  /**
   * @param base the marketplace's URL on 127.0.0.1 (Keycloak accepts any port there)
   * @throws IllegalStateException when Debian's chromium is not installed
   */
  static Chromium launch(String base) {
    if (!Files.isExecutable(EXECUTABLE)) {
      throw new IllegalStateException(
          EXECUTABLE + " is missing: install Debian's chromium (./tensafe test does)");
    }
    Playwright playwright =
        Playwright.create(
            new Playwright.CreateOptions().setEnv(Map.of("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")));
    Browser browser =
        playwright
            .chromium()
            .launch(
                new BrowserType.LaunchOptions()
                    .setExecutablePath(EXECUTABLE)
                    .setHeadless(true)
                    .setArgs(
                        List.of(
                            "--no-sandbox",
                            "--disable-gpu",
                            "--disable-dev-shm-usage",
                            "--disable-background-networking",
                            "--disable-component-update",
                            "--disable-sync")));
    return new Chromium(playwright, browser, base);
  }

  String url(String path) {
    return base + path;
  }

  /** A fresh browser session (no cookies) at laptop width, signed in as {@code user}. */
  Page signIn(String user, String path) {
    return signIn(user, path, 1280, 900);
  }

  /** Opens {@code path}, which sends the browser to Keycloak's form, and signs in there. */
  Page signIn(String user, String path, int width, int height) {
    BrowserContext context =
        browser.newContext(
            new Browser.NewContextOptions()
                .setViewportSize(width, height)
                .setAcceptDownloads(true));
    context.setDefaultTimeout(20_000);
    Page page = context.newPage();
    page.navigate(url(path));
    page.locator("#username").fill(user);
    page.locator("#password").fill(user);
    page.locator("#kc-login").click();
    page.waitForURL(u -> u.startsWith(base));
    page.waitForLoadState();
    return page;
  }

  /** Saves a full-page screenshot as {@code target/screenshots/<name>.png}. */
  static Path screenshot(Page page, String name) {
    try {
      Files.createDirectories(SCREENSHOTS);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Path file = SCREENSHOTS.resolve(name + ".png");
    page.screenshot(new Page.ScreenshotOptions().setPath(file).setFullPage(true));
    return file;
  }

  @Override
  public void close() {
    browser.close();
    playwright.close();
  }
}
