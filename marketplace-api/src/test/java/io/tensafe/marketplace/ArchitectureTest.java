package io.tensafe.marketplace;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The marketplace's layering, as ARCHITECTURE.md states it, checked on its compiled classes: a
 * package cycle, or a dependency the invariants forbid, fails the build.
 */
class ArchitectureTest {
  static JavaClasses classes;

  @BeforeAll
  static void importMainClasses() {
    classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.tensafe.marketplace");
  }

  @Test
  void featurePackages_dependOnEachOtherOneWayOnly() {
    slices().matching("io.tensafe.marketplace.(*)..").should().beFreeOfCycles().check(classes);
  }

  @Test
  void theMarketplace_neverHoldsAFleetPrivateKey_norOpensAPackage() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .haveFullyQualifiedName("io.tensafe.tgsp.crypto.FleetKeyPair")
        .orShould()
        .dependOnClassesThat()
        .haveSimpleName("AdapterOpener")
        .because("the marketplace verifies packages but never decrypts them (ARCHITECTURE.md)")
        .check(classes);
  }

  @Test
  void theStepGate_isAPureFunction_ofNoDatabaseOrService() {
    noClasses()
        .that()
        .resideInAPackage("io.tensafe.marketplace.routing..")
        .should()
        .dependOnClassesThat()
        .resideOutsideOfPackages("java..", "io.tensafe.marketplace.routing..")
        .because("ADR 0009: the step-gate is a pure function of the prompt and the candidates")
        .check(classes);
  }

  @Test
  void theLibrariesNeverSeeTheService() {
    noClasses()
        .that()
        .resideInAnyPackage("io.tensafe.tgsp..", "io.tensafe.kernels..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.tensafe.marketplace..")
        .check(
            new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.tensafe.tgsp"));
  }
}
