package io.tensafe.marketplace;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The marketplace's layering and its invariants from ARCHITECTURE.md, checked by ArchUnit's JUnit
 * engine on the compiled main classes of the marketplace and of tgsp-format: a package cycle, or a
 * dependency the invariants forbid, fails the build.
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
  static final ArchRule theLibrariesNeverSeeTheService =
      noClasses()
          .that()
          .resideInAnyPackage("io.tensafe.tgsp..", "io.tensafe.kernels..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.tensafe.marketplace..");
}
