package io.tensafe.node;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The node's layering, as ARCHITECTURE.md states it, checked on its compiled classes: a package
 * cycle, or a dependency the invariants forbid, fails the build.
 */
class ArchitectureTest {
  static JavaClasses classes;

  @BeforeAll
  static void importMainClasses() {
    classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.tensafe.node");
  }

  @Test
  void featurePackages_dependOnEachOtherOneWayOnly() {
    slices().matching("io.tensafe.node.(*)..").should().beFreeOfCycles().check(classes);
  }

  @Test
  void theMarketplaceClient_isTheBottomLayer() {
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
        .because("it only talks to the marketplace; what the node does with it lives above it")
        .check(classes);
  }

  @Test
  void onlyTheBackendChoice_touchesTheCudaBackend() {
    noClasses()
        .that()
        .resideOutsideOfPackage("io.tensafe.node.health..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.tensafe.kernels.cuda..")
        .because("the node loads native CUDA code only where it chooses its HE backend")
        .check(classes);
  }
}
