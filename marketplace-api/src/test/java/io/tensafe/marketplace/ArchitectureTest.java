package io.tensafe.marketplace;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackages;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The marketplace's layering and its invariants from ARCHITECTURE.md, checked by ArchUnit's JUnit
 * engine on the compiled main classes of the marketplace and of tgsp-format: a package cycle, or a
 * dependency the invariants forbid, fails the build. One rule ArchUnit cannot see in bytecode (no
 * {@code Object[]} row casts) is a scan of the main sources, run by JUnit Jupiter.
 */
@AnalyzeClasses(
    packages = {"io.tensafe.marketplace", "io.tensafe.tgsp"},
    importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

  @ArchTest
  static final ArchRule featurePackages_dependOnEachOtherOneWayOnly =
      slices().matching("io.tensafe.marketplace.(*)..").should().beFreeOfCycles();

  @ArchTest
  static final ArchRule theMarketplace_neverHoldsAFleetPrivateKey_norOpensAPackage =
      noClasses()
          .that()
          .resideInAPackage("io.tensafe.marketplace..")
          .should()
          .dependOnClassesThat()
          .haveFullyQualifiedName("io.tensafe.tgsp.crypto.FleetKeyPair")
          .orShould()
          .dependOnClassesThat()
          .haveSimpleName("AdapterOpener")
          .because("the marketplace verifies packages but never decrypts them (ARCHITECTURE.md)");

  @ArchTest
  static final ArchRule theStepGate_isAPureFunction_ofNoDatabaseOrService =
      noClasses()
          .that()
          .resideInAPackage("io.tensafe.tgsp.routing..")
          .should()
          .dependOnClassesThat()
          .resideOutsideOfPackages("java..", "io.tensafe.tgsp.routing..")
          .because("ADR 0009: the step-gate is a pure function of the prompt and the candidates");

  @ArchTest
  static final ArchRule theLibrariesNeverSeeTheServices_norQuarkus =
      noClasses()
          .that()
          .resideInAnyPackage("io.tensafe.tgsp..", "io.tensafe.kernels..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "io.tensafe.marketplace..",
              "io.tensafe.node..",
              "io.tensafe.client..",
              "io.quarkus..")
          .because("dependency direction is services → libraries, never back (ARCHITECTURE.md)");

  @ArchTest
  static final ArchRule tgspPackages_dependOnEachOtherOneWayOnly =
      oneWayOnly(
          "io.tensafe.tgsp",
          "io, json",
          "safetensors",
          "peft",
          "manifest",
          "crypto",
          "container",
          "packaging",
          "cli");

  @ArchTest
  static final ArchRule tgspSessionFrames_dependOnNoOtherTgspPackage =
      noClasses()
          .that()
          .resideInAPackage("io.tensafe.tgsp.session..")
          .should()
          .dependOnClassesThat(
              resideInAPackage("io.tensafe.tgsp.*..")
                  .and(resideOutsideOfPackage("io.tensafe.tgsp.session..")))
          .because(
              "both the marketplace and the node enforce FrameOrder, which needs nothing of a"
                  + " package (ARCHITECTURE.md; the exception root TgspException is allowed)");

  @ArchTest
  static final ArchRule limits_dependOnNoOtherMarketplacePackage_butSqlRows =
      noClasses()
          .that()
          .resideInAPackage("io.tensafe.marketplace.limits..")
          .should()
          .dependOnClassesThat(
              resideInAPackage("io.tensafe.marketplace..")
                  .and(
                      resideOutsideOfPackages(
                          "io.tensafe.marketplace.limits..", "io.tensafe.marketplace.sql..")))
          .because("every replica's limits sit under the features that take them (ADR 0020)");

  @ArchTest
  static final ArchRule theFleetRegistry_servesNoPackages =
      noClasses()
          .that()
          .resideInAPackage("io.tensafe.marketplace.fleet..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.tensafe.marketplace.adapter..")
          .because("adapter.NodePackageResource serves packages to nodes (ARCHITECTURE.md)");

  @ArchTest
  static final ArchRule settings_areDeclaredOnce_asConfigMappings =
      noClasses()
          .that()
          .resideInAPackage("io.tensafe.marketplace..")
          .should()
          .dependOnClassesThat()
          .haveFullyQualifiedName("org.eclipse.microprofile.config.inject.ConfigProperty")
          .because(
              "each concern's settings are one @ConfigMapping beside the code that reads them,"
                  + " with their defaults (ARCHITECTURE.md)");

  private static final Pattern ROW_CAST = Pattern.compile("\\(\\s*Object\\s*\\[\\s*]\\s*\\)");

  /** Every native query's rows are read as a record through {@code sql.Rows}, never cast. */
  @Test
  void nativeQueryRows_areRecords_neverObjectArrays() throws IOException {
    Path sources = Path.of("src/main/java/io/tensafe/marketplace");
    assertTrue(Files.isDirectory(sources), "run from the marketplace-api module");
    try (Stream<Path> files = Files.walk(sources)) {
      List<String> casts =
          files
              .filter(f -> f.toString().endsWith(".java"))
              .filter(f -> ROW_CAST.matcher(read(f)).find())
              .map(Path::toString)
              .sorted()
              .toList();
      assertEquals(List.of(), casts, "cast Object[] rows: read them with sql.Rows instead");
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A rule that packages under {@code root} depend on each other one way only: each entry of {@code
   * chain} (one package, or several separated by commas, which may use each other) only on the
   * entries before it. Packages outside the chain are not constrained by it.
   */
  static ArchRule oneWayOnly(String root, String... chain) {
    LayeredArchitecture layers = layeredArchitecture().consideringOnlyDependenciesInLayers();
    for (String layer : chain) {
      String[] packages =
          Arrays.stream(layer.split(","))
              .map(p -> root + "." + p.strip() + "..")
              .toArray(String[]::new);
      layers = layers.layer(layer).definedBy(packages);
    }
    for (int i = 0; i < chain.length; i++) {
      String[] above = Arrays.copyOfRange(chain, i + 1, chain.length);
      layers =
          above.length == 0
              ? layers.whereLayer(chain[i]).mayNotBeAccessedByAnyLayer()
              : layers.whereLayer(chain[i]).mayOnlyBeAccessedByLayers(above);
    }
    return layers.because("ARCHITECTURE.md orders them " + String.join(" → ", chain));
  }

  // The metering core (issue 34, ADR 0026): one gateway under both protocols.

  @ArchTest
  static final ArchRule theGateway_knowsNoProtocol_andNoCaller =
      noClasses()
          .that()
          .resideInAPackage("io.tensafe.marketplace.gateway..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "io.tensafe.marketplace.openai..",
              "io.tensafe.marketplace.privatemode..",
              "io.tensafe.marketplace.usage..",
              "io.tensafe.marketplace.dashboard..",
              "io.tensafe.marketplace.web..")
          .because("ADR 0026: hosted and private requests share one metering core beneath them");

  @ArchTest
  static final ArchRule theOpenAiWireFormat_andThePrivateFrameProtocol_knowNothingOfEachOther =
      noClasses()
          .that()
          .resideInAPackage("io.tensafe.marketplace.openai..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.tensafe.marketplace.privatemode..")
          .orShould()
          .dependOnClassesThat()
          .resideInAPackage("io.tensafe.marketplace.usage..")
          .because("ADR 0026: openai keeps only OpenAI's wire format");

  @ArchTest
  static final ArchRule thePrivateFrameProtocol_knowsNothingOfOpenAi =
      noClasses()
          .that()
          .resideInAPackage("io.tensafe.marketplace.privatemode..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("io.tensafe.marketplace.openai..", "io.tensafe.marketplace.usage..")
          .because(
              "ADR 0026: privatemode keeps the frame protocol and its sessions, never the wire format");

  @ArchTest
  static final ArchRule nothingReachesBackUp_theSettlementKnowsNoDispatch =
      noClasses()
          .that()
          .haveFullyQualifiedName("io.tensafe.marketplace.gateway.Settlement")
          .or()
          .haveFullyQualifiedName("io.tensafe.marketplace.gateway.GatewayRequests")
          .or()
          .haveFullyQualifiedName("io.tensafe.marketplace.gateway.RequestAdmission")
          .or()
          .haveFullyQualifiedName("io.tensafe.marketplace.gateway.HostedRelay")
          .should()
          .dependOnClassesThat()
          .haveSimpleNameStartingWith("HostedCompletions")
          .orShould()
          .dependOnClassesThat()
          .haveFullyQualifiedName("io.tensafe.marketplace.gateway.Dispatch")
          .because("ADR 0026: callers own what they call; nothing below reaches back up");

  @ArchTest
  static final ArchRule billingAndBudgets_knowNoGateway =
      noClasses()
          .that()
          .resideInAnyPackage(
              "io.tensafe.marketplace.billing..", "io.tensafe.marketplace.privacy..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "io.tensafe.marketplace.gateway..",
              "io.tensafe.marketplace.openai..",
              "io.tensafe.marketplace.privatemode..")
          .because("the ledgers are below the gateway that writes to them");
}
