package io.tensafe.node;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The node's layering, as ARCHITECTURE.md states it, checked by ArchUnit's JUnit engine on the
 * node's compiled main classes: a package cycle, or a dependency the invariants forbid, fails the
 * build.
 */
@AnalyzeClasses(packages = "io.tensafe.node", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

  @ArchTest
  static final ArchRule featurePackages_dependOnEachOtherOneWayOnly =
      slices().matching("io.tensafe.node.(*)..").should().beFreeOfCycles();

  @ArchTest
  static final ArchRule theMarketplaceClient_isTheBottomLayer =
      noClasses()
          .that()
          .resideInAPackage("io.tensafe.node.marketplace..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "io.tensafe.node.adapter..",
              "io.tensafe.node.generation..",
              "io.tensafe.node.usage..",
              "io.tensafe.node.fleet..")
          .because("it only talks to the marketplace; what the node does with it lives above it");

  @ArchTest
  static final ArchRule onlyTheBackendChoice_touchesTheCudaBackend =
      noClasses()
          .that()
          .resideOutsideOfPackage("io.tensafe.node.health..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.tensafe.kernels.cuda..")
          .because("the node loads native CUDA code only where it chooses its HE backend");
}
