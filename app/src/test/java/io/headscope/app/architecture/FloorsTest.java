package io.headscope.app.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The floors of each module (docs/ARCHITECTURE.md): which package may import which, and no package
 * cycles in main code. A floor may use the floors below it and never one above it, so a class can be
 * read, tested and moved with only what is under it.
 */
class FloorsTest {
  static JavaClasses main;

  @BeforeAll
  static void importClasses() {
    main = MainClasses.all();
  }

  @Test
  void theModelModuleStandsOnItsCoreFloor() {
    layeredArchitecture().consideringOnlyDependenciesInLayers()
        .layer("Core").definedBy("io.headscope.model.core..")
        .layer("Checkpoint").definedBy("io.headscope.model.checkpoint..")
        .layer("Tokenizer").definedBy("io.headscope.model.tokenizer..")
        .layer("Store").definedBy("io.headscope.model.store..")
        .layer("Hub").definedBy("io.headscope.model.hub..")
        .layer("Repository").definedBy("io.headscope.model.repository..")
        .layer("Engine").definedBy("io.headscope.model.engine..")
        .layer("Finetune").definedBy("io.headscope.model.finetune..")
        .layer("Facade").definedBy("io.headscope.model")
        .whereLayer("Core").mayNotAccessAnyLayer()
        .whereLayer("Checkpoint").mayOnlyAccessLayers("Core")
        .whereLayer("Tokenizer").mayOnlyAccessLayers("Core")
        // the cache checks a safetensors file's header before it trusts it
        .whereLayer("Store").mayOnlyAccessLayers("Core", "Checkpoint")
        .whereLayer("Hub").mayOnlyAccessLayers("Core", "Checkpoint", "Store") // a sharded index's shard names
        .whereLayer("Repository").mayOnlyAccessLayers("Core", "Checkpoint", "Tokenizer", "Store", "Hub")
        .whereLayer("Engine").mayOnlyAccessLayers("Core", "Checkpoint", "Tokenizer")
        .whereLayer("Finetune").mayOnlyAccessLayers("Core", "Checkpoint", "Tokenizer", "Store", "Engine")
        .whereLayer("Facade").mayOnlyAccessLayers("Core", "Checkpoint", "Tokenizer", "Store", "Engine")
        .whereLayer("Facade").mayNotBeAccessedByAnyLayer()
        .whereLayer("Repository").mayNotBeAccessedByAnyLayer()
        .whereLayer("Finetune").mayNotBeAccessedByAnyLayer()
        .because("the core floor (config, heads, masks, errors) imports nothing of ours; files, checkpoints, "
            + "tokens and the hub sit on it; the engine above them; the facade on top")
        .check(main);
  }

  @Test
  void theAnalysesStandOnTheirNumbersAndTheShardCodecOnTop() {
    layeredArchitecture().consideringOnlyDependenciesInLayers()
        .layer("Numeric").definedBy("io.headscope.analysis.numeric..")
        .layer("Analyses").definedBy("io.headscope.analysis.ablation..", "io.headscope.analysis.causal..",
            "io.headscope.analysis.compare..", "io.headscope.analysis.corpus..", "io.headscope.analysis.distance..",
            "io.headscope.analysis.evaluation..",
            "io.headscope.analysis.favor..", "io.headscope.analysis.flow..", "io.headscope.analysis.heads..",
            "io.headscope.analysis.linguistics..", "io.headscope.analysis.predict..",
            "io.headscope.analysis.lens..", "io.headscope.analysis.saliency..", "io.headscope.analysis.neuron..",
            "io.headscope.analysis.circuits..")
        .layer("Export").definedBy("io.headscope.analysis.export..")
        .layer("Shard").definedBy("io.headscope.analysis.shard..")
        .whereLayer("Numeric").mayNotAccessAnyLayer()
        .whereLayer("Analyses").mayOnlyAccessLayers("Numeric")
        .whereLayer("Export").mayOnlyAccessLayers("Analyses", "Numeric")
        .whereLayer("Export").mayNotBeAccessedByAnyLayer()
        .whereLayer("Shard").mayNotBeAccessedByAnyLayer()
        .because("an analysis uses the exact sums below it and other analyses beside it; the partial results "
            + "of a shard and their merges read every analysis, so nothing reads them")
        .check(main);
  }

  @Test
  void theModelModuleHasNoPackageCycle() {
    slices().matching("io.headscope.model.(*)..").should().beFreeOfCycles().check(main);
  }

  @Test
  void theModelModuleWithItsFacadeHasNoPackageCycle() {
    // matching(...) leaves out classes in the module's root package, where the facade lives
    slices().assignedFrom(firstPackageUnder("io.headscope.model")).should().beFreeOfCycles().check(main);
  }

  @Test
  void theAnalysisModuleHasNoPackageCycle() {
    slices().matching("io.headscope.analysis.(*)..").should().beFreeOfCycles().check(main);
  }

  @Test
  void theAppOutsideTheWindowHasNoPackageCycle() {
    // the window's packages have floors of their own, drawn with the screens
    slices().assignedFrom(firstPackageUnder("io.headscope.app")).should().beFreeOfCycles()
        .check(main.that(DescribedPredicate.not(resideInAPackage("io.headscope.app.gui.."))));
  }

  @Test
  void noAnalysisLivesInTheModelModule() {
    noClasses().should().resideInAPackage("io.headscope.model.ablation..")
        .because("sweeps, pruning and importance are analyses: they live in io.headscope.analysis")
        .allowEmptyShould(true)
        .check(main);
  }

  @Test
  void insideTheModelModuleOnlyTheFacadeDrivesTheModel() {
    // an analysis drives the model through its facade; inside the model module only the facade does
    noClasses().that().resideInAPackage("io.headscope.model..").and().resideOutsideOfPackage("io.headscope.model")
        .should().dependOnClassesThat().haveFullyQualifiedName("io.headscope.model.BertModel")
        .because("code that runs the model through BertModel is an analysis and belongs in io.headscope.analysis")
        .check(main);
  }

  @Test
  void theAnalysesKnowNoCommandLineAndNoWindow() {
    noClasses().that().resideInAPackage("io.headscope.analysis..")
        .should().dependOnClassesThat().resideInAnyPackage("picocli..", "javafx..", "io.headscope.app..")
        .check(main);
  }

  @Test
  void shardMergingLivesBesideTheAnalysesNotInTheCommandLine() {
    // top-level classes: a sweep's own partial state (AblationSweep.Partial) is not a shard's file
    classes().that().areTopLevelClasses().and().haveSimpleNameEndingWith("Partial").or().haveSimpleName("PartialFile")
        .should().resideInAPackage("io.headscope.analysis.shard..")
        .because("a shard's partial result and its merge are analysis; a command only handles its arguments")
        .check(main);
  }

  @Test
  void theServeProtocolKnowsNoCommand() {
    // the commands reach the protocol through ServeCommand (in cli); the protocol runs whatever it is handed
    noClasses().that().resideInAPackage("io.headscope.app.cli.serve..")
        .should().dependOnClassesThat(resideInAPackage("io.headscope.app.cli")
            .or(resideInAPackage("io.headscope.model..")).or(resideInAPackage("io.headscope.analysis..")))
        .because("serve --stdio runs every command, including ones added later, without knowing any of them")
        .check(main);
  }

  @Test
  void theFiguresKnowNoWindow() {
    noClasses().that().resideInAPackage("io.headscope.app.render..")
        .should().dependOnClassesThat()
        .resideInAnyPackage("javafx..", "io.headscope.app.gui..", "io.headscope.app.cli..")
        .because("the command line draws figures too, without a display")
        .check(main);
  }

  @Test
  void theInteractivePageStandsOnTheFiguresNotTheOtherWayRound() {
    // render.page writes one HTML file from the model's analyses and the render floor's colours; the figures
    // (render, render.figure) never need it, and it needs no window and no command line (theFiguresKnowNoWindow)
    noClasses().that().resideInAPackage("io.headscope.app.render..")
        .and().resideOutsideOfPackage("io.headscope.app.render.page..")
        .should().dependOnClassesThat().resideInAPackage("io.headscope.app.render.page..")
        .because("the page reads the palette and the line selection; the figures know nothing of the page")
        .check(main);
  }

  /** One slice per package directly under {@code root}, and one for {@code root} itself; the window aside. */
  private static SliceAssignment firstPackageUnder(String root) {
    return new SliceAssignment() {
      @Override
      public SliceIdentifier getIdentifierOf(JavaClass c) {
        String p = c.getPackageName();
        if (p.equals(root)) {
          return SliceIdentifier.of("(root)");
        }
        if (!p.startsWith(root + ".")) {
          return SliceIdentifier.ignore();
        }
        String rest = p.substring(root.length() + 1);
        String first = rest.contains(".") ? rest.substring(0, rest.indexOf('.')) : rest;
        return root.equals("io.headscope.app") && first.equals("gui") ? SliceIdentifier.ignore()
            : SliceIdentifier.of(first);
      }

      @Override
      public String getDescription() {
        return "packages under " + root + ", with the root";
      }
    };
  }
}
