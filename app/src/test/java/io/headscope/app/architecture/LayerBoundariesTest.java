package io.headscope.app.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import ai.djl.ndarray.NDArray;
import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClasses;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The boundaries the module graph cannot draw alone (JabRef's architecture tests): tensors stay in
 * the engine, the analyses know nothing of JavaFX, and the command line knows nothing of the window.
 * Checked on the compiled main classes of every module.
 */
class LayerBoundariesTest {
  static JavaClasses main;

  @BeforeAll
  static void importClasses() {
    main = MainClasses.all();
  }

  @Test
  void onlyTheEnginePackageTouchesTensors() {
    noClasses().that().resideOutsideOfPackages("io.headscope.model.engine..", "io.headscope.model.tokenizer..")
        .should().dependOnClassesThat().resideInAnyPackage("ai.djl..")
        .because("NDArrays, managers and the engine stay inside io.headscope.model.engine; the rest sees Java arrays")
        .check(main);
  }

  @Test
  void theTokenizerWrapperUsesDjlsTokenizerButNoTensors() {
    noClasses().that().resideInAPackage("io.headscope.model.tokenizer..")
        .should().dependOnClassesThat().resideInAnyPackage("ai.djl.ndarray..", "ai.djl.engine..", "ai.djl.nn..",
            "ai.djl.training..", "ai.djl.pytorch..")
        .check(main);
  }

  /**
   * DJL's {@code NDArray.mul(Number)} and its kin free the number's memory while a backward pass may
   * still read it (see the engine's {@code Scalars}): fine-tuning went to NaN when the Java collector
   * ran between the passes.
   */
  @Test
  void theEngineNeverCombinesATensorWithAJavaNumber() {
    noClasses().that().resideInAPackage("io.headscope.model.engine..")
        .should().callMethodWhere(DescribedPredicate.describe("an NDArray method taking a java.lang.Number",
            call -> call.getTargetOwner().isAssignableTo(NDArray.class)
                && call.getTarget().getRawParameterTypes().stream().anyMatch(t -> t.isEquivalentTo(Number.class))))
        .because("the 0-d array DJL makes for the number is freed before a backward pass reads it; "
            + "use Scalars.of, which lives as long as the call's scope")
        .check(main);
  }

  @Test
  void theAnalysesImportNoJavaFx() {
    noClasses().that().resideInAPackage("io.headscope.analysis..")
        .should().dependOnClassesThat().resideInAnyPackage("javafx..")
        .check(main);
  }

  @Test
  void theModelKnowsNothingOfTheAnalysesOrTheApp() {
    noClasses().that().resideInAPackage("io.headscope.model..")
        .should().dependOnClassesThat().resideInAnyPackage("io.headscope.analysis..", "io.headscope.app..", "javafx..")
        .check(main);
  }

  @Test
  void theCommandLineImportsNothingFromTheWindow() {
    noClasses().that().resideInAPackage("io.headscope.app.cli..")
        .should().dependOnClassesThat().resideInAnyPackage("io.headscope.app.gui..", "javafx..")
        .check(main);
  }
}
