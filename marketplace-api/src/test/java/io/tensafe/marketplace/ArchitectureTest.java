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
          .because("ADR 0026: privatemode keeps only the frame protocol");

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
