package io.tensafe.node;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackages;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The node's layering, as ARCHITECTURE.md states it, checked by ArchUnit's JUnit engine on the
 * node's compiled main classes (the service's and the runtime's) and on the libraries it runs,
 * kernels and tgsp-format: a package cycle, or a dependency the invariants forbid, fails the build.
 */
@AnalyzeClasses(
    packages = {"io.tensafe.node", "io.tensafe.kernels", "io.tensafe.tgsp"},
    importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
  /** The runtime's packages (artifact inference-runtime): a plain library under the service. */
  private static final String[] RUNTIME = {
    "io.tensafe.node.model..",
    "io.tensafe.node.privatemode..",
    "io.tensafe.node.runtime..",
    "io.tensafe.node.tokenizer.."
  };

  @ArchTest
  static final ArchRule featurePackages_dependOnEachOtherOneWayOnly =
      slices().matching("io.tensafe.node.(*)..").should().beFreeOfCycles();

  @ArchTest
  static final ArchRule theMarketplaceClient_isTheBottomLayer =
      noClasses()
          .that()
          .resideInAPackage("io.tensafe.node.marketplace..")
          .should()
          .dependOnClassesThat(
              resideInAPackage("io.tensafe.node..")
                  .and(resideOutsideOfPackage("io.tensafe.node.marketplace..")))
          .because(
              "it only talks to the marketplace and depends on no other node package; what the"
                  + " node does with it lives above it");

  @ArchTest
  static final ArchRule theNodesSettings_dependOnNoOtherPackage =
      noClasses()
          .that()
          .resideInAPackage("io.tensafe.node.config..")
          .should()
          .dependOnClassesThat(
              resideInAPackage("io.tensafe.node..")
                  .and(resideOutsideOfPackage("io.tensafe.node.config..")))
          .because("config.NodeConfig declares settings and depends on no other package");

  @ArchTest
  static final ArchRule settings_areDeclaredOnce_asConfigMappings =
      noClasses()
          .that()
          .resideInAPackage("io.tensafe.node..")
          .should()
          .dependOnClassesThat()
          .haveFullyQualifiedName("org.eclipse.microprofile.config.inject.ConfigProperty")
          .because("settings are @ConfigMapping interfaces, each declared once with its default");

  @ArchTest
  static final ArchRule onlyTheBackendChoice_touchesTheCudaBackend =
      noClasses()
          .that()
          .resideInAPackage("io.tensafe.node..")
          .and()
          .resideOutsideOfPackage("io.tensafe.node.health..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.tensafe.kernels.cuda..")
          .because("the node loads native CUDA code only where it chooses its HE backend");

  @ArchTest
  static final ArchRule theRuntime_isAPlainLibrary_underTheService =
      noClasses()
          .that()
          .resideInAnyPackage(RUNTIME)
          .should()
          .dependOnClassesThat(
              resideInAPackage("io.tensafe.node..")
                  .and(resideOutsideOfPackages(RUNTIME))
                  .or(resideInAnyPackage("io.quarkus..", "io.tensafe.client..")))
          .because("inference-runtime is a plain library, no Quarkus (ARCHITECTURE.md)");

  @ArchTest
  static final ArchRule theLibrariesNeverSeeTheServices_norQuarkus =
      noClasses()
          .that()
          .resideInAnyPackage("io.tensafe.tgsp..", "io.tensafe.kernels..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "io.tensafe.node..",
              "io.tensafe.client..",
              "io.tensafe.marketplace..",
              "io.quarkus..")
          .because("dependency direction is services → libraries, never back (ARCHITECTURE.md)");

  @ArchTest
  static final ArchRule kernelsCore_neverTouchesTheCudaDriver =
      noClasses()
          .that()
          .resideInAPackage("io.tensafe.kernels..")
          .and()
          .resideOutsideOfPackage("io.tensafe.kernels.cuda..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("jcuda..", "io.tensafe.kernels.cuda..")
          .because(
              "kernels-core loads no native code; the driver is kernels-cuda's (ARCHITECTURE.md)");

  @ArchTest
  static final ArchRule kernelsPackages_dependOnEachOtherOneWayOnly =
      layeredArchitecture()
          .consideringOnlyDependenciesInLayers()
          .layer("ring")
          .definedBy("io.tensafe.kernels.ring..")
          .layer("params")
          .definedBy("io.tensafe.kernels.params..")
          .layer("rlwe")
          .definedBy("io.tensafe.kernels.rlwe..")
          .layer("ckks")
          .definedBy("io.tensafe.kernels.ckks..")
          .layer("protocol")
          .definedBy("io.tensafe.kernels.protocol..")
          .layer("helora")
          .definedBy("io.tensafe.kernels.helora..")
          .whereLayer("helora")
          .mayNotBeAccessedByAnyLayer()
          .whereLayer("ckks")
          .mayOnlyBeAccessedByLayers("helora")
          .whereLayer("protocol")
          .mayOnlyBeAccessedByLayers("helora")
          .whereLayer("rlwe")
          .mayOnlyBeAccessedByLayers("ckks", "protocol", "helora")
          .whereLayer("params")
          .mayOnlyBeAccessedByLayers("rlwe", "ckks", "protocol", "helora")
          .because(
              "ARCHITECTURE.md orders them ring → params → rlwe → ckks → helora, with private"
                  + " mode's protocol above rlwe (ADR 0037)");

  @ArchTest
  static final ArchRule theKernelsBackend_dependsOnlyOnTheRing =
      noClasses()
          .that()
          .resideInAPackage("io.tensafe.kernels.backend..")
          .should()
          .dependOnClassesThat(
              resideInAPackage("io.tensafe.kernels..")
                  .and(
                      resideOutsideOfPackages(
                          "io.tensafe.kernels.backend..", "io.tensafe.kernels.ring..")))
          .because("the HeBackend SPI works on batches of limbs (ARCHITECTURE.md)");
}
