package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.analysis.causal.PatchInputs;
import io.headscope.analysis.circuits.Ablation;
import io.headscope.analysis.circuits.CircuitEdge;
import io.headscope.analysis.circuits.CompositionResult;
import io.headscope.analysis.circuits.CompositionScores;
import io.headscope.analysis.circuits.EdgeAnalysis;
import io.headscope.analysis.circuits.EdgeScores;
import io.headscope.analysis.circuits.Faithfulness;
import io.headscope.app.gui.circuits.CircuitsViewModel;
import io.headscope.app.gui.exec.DirectWorker;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.engine.CompositionNorms.Mode;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Circuits screen's state without a window: the edges drawn are the service's top edges by |score| over
 * the threshold, a clicked edge's exact patch is the run with that edge alone ablated, the faithfulness curve
 * ends where every edge is kept (the clean run: all of the behaviour), the composition matrix is the
 * service's scores into the chosen head, and the detectors reach the ranking of heads.
 */
class CircuitsViewModelTest {
  static final String CLEAN = "the king was in paris and [MASK] was a queen .";
  static final String CORRUPTED = "the queen was in paris and [MASK] was a king .";
  @TempDir static Path dir;
  static MainViewModel main;

  @BeforeAll
  static void load() {
    Path tiny = TinyBert.create(2, 3, 7).writeTo(dir.resolve("tiny")).config().getParent();
    main = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    main.textAProperty().set(CLEAN);
    main.loadModel(tiny.toString());
    main.analyse();
  }

  private static CircuitsViewModel ran() {
    CircuitsViewModel vm = new CircuitsViewModel(main.session());
    vm.corruptedProperty().set(CORRUPTED);
    vm.targetProperty().set("she");
    vm.contrastProperty().set("he");
    vm.run();
    assertThat(vm.resultProperty().get()).as(vm.statusProperty().get()).isNotNull();
    return vm;
  }

  @Test
  void theDrawnEdgesAreTheServicesTopEdgesOverTheThreshold() {
    CircuitsViewModel vm = ran();
    BertModel m = main.session().model();
    TargetMetric metric = new TargetMetric(TargetMetric.Kind.LOGIT_DIFF, m.tokenizer().singleTokenId("she"),
        m.tokenizer().singleTokenId("he"));
    EdgeScores want = EdgeAnalysis.of(m, PatchInputs.of(m, CLEAN, CORRUPTED), metric, Ablation.CORRUPTED, List.of())
        .eap();
    EdgeScores got = vm.resultProperty().get().scores();
    assertThat(got.edges()).isEqualTo(want.edges());
    assertThat(got.scores()).containsExactly(want.scores(), within(0.0));

    vm.topProperty().set(7);
    assertThat(vm.shownProperty().get()).hasSize(7);
    for (int k = 1; k < 7; k++) {
      assertThat(Math.abs(got.score(vm.shownProperty().get().get(k - 1))))
          .isGreaterThanOrEqualTo(Math.abs(got.score(vm.shownProperty().get().get(k))));
    }
    // no edge left out is larger than the smallest drawn
    double smallest = Math.abs(got.score(vm.shownProperty().get().get(6)));
    for (int i = 0; i < got.edges().size(); i++) {
      if (!vm.shownProperty().get().contains(i)) {
        assertThat(Math.abs(got.score(i))).isLessThanOrEqualTo(smallest);
      }
    }
    vm.thresholdProperty().set(smallest * 1.0000001);
    assertThat(vm.shownProperty().get()).hasSizeLessThan(7);
    vm.thresholdProperty().set(Double.POSITIVE_INFINITY);
    assertThat(vm.shownProperty().get()).isEmpty();
    assertThat(vm.statusProperty().get()).startsWith("EAP of " + got.edges().size() + " edges");
  }

  @Test
  void aClickedEdgesExactPatchIsTheRunWithThatEdgeAloneAblated() {
    CircuitsViewModel vm = ran();
    CircuitsViewModel.Result r = vm.resultProperty().get();
    int i = r.scores().top(1)[0];
    CircuitEdge e = r.scores().edges().get(i);
    vm.selectEdge(i);
    assertThat(vm.checkProperty().get()).as(vm.statusProperty().get()).isNotNull();
    assertThat(vm.checkProperty().get().edge()).isEqualTo(e);
    assertThat(vm.checkProperty().get().estimate()).isEqualTo(r.scores().score(i));
    assertThat(vm.checkProperty().get().exact()).isEqualTo(r.analysis().metricWithout(List.of(e)) - r.analysis().clean());
    assertThat(vm.statusProperty().get()).contains(e.label()).contains("exact patch");
  }

  @Test
  void theFaithfulnessCurveEndsWithEveryEdgeKeptAtTheWholeBehaviour() {
    CircuitsViewModel vm = ran();
    Faithfulness f = vm.resultProperty().get().faithfulness();
    CircuitsViewModel.Result r = vm.resultProperty().get();
    Faithfulness.Point last = f.points().get(f.points().size() - 1);
    assertThat(last.edges()).isEqualTo(r.scores().edges().size());
    // every edge kept is the clean run (the forward pass with nothing swapped): float32 runs of the same
    // input, so equal to rounding of the metric's size
    assertThat(last.metric()).isCloseTo(r.analysis().clean(), within(1e-4 * (1 + Math.abs(r.analysis().clean()))));
    assertThat(f.empty()).isCloseTo(r.analysis().corrupted(), within(1e-4 * (1 + Math.abs(r.analysis().corrupted()))));
    for (Faithfulness.Point p : f.points()) {
      assertThat(p.kept()).isCloseTo((p.metric() - f.empty()) / (f.full() - f.empty()), within(1e-12));
    }
    assertThat(f.points()).extracting(Faithfulness.Point::edges).isSorted();
  }

  @Test
  void theCompositionMatrixIsTheServicesScoresIntoTheChosenHeadAndTheDetectorsAreRanked() {
    CircuitsViewModel vm = new CircuitsViewModel(main.session());
    vm.computeWeights();
    assertThat(vm.weightsProperty().get()).as(vm.statusProperty().get()).isNotNull();
    vm.receiverProperty().set(new Head(1, 2));
    vm.modeProperty().set(Mode.K);
    CompositionResult want = CompositionScores.of(main.session().model(), Mode.K);
    double[][] got = vm.compositionMatrix();
    // The screen's scores and the service's come from two runs of the same float32 Gram products: equal bits
    // where MKL keeps to its strict mode, elsewhere (AMD, the AVX2 leg) each within gamma_n of exact, relative,
    // for its numerator and both norms (n: the longest float32 sum, over the hidden width twice and the head
    // width once), so the two within twice three times that of each other.
    var c = main.session().model().config();
    double rel = 2 * 3 * io.headscope.model.testing.Float32Bounds.gamma(2L * c.hiddenSize() + c.headSize());
    for (int h = 0; h < 3; h++) {
      assertThat(got[0][h]).isCloseTo(want.score(0, h, 1, 2), within(rel * Math.abs(want.score(0, h, 1, 2))));
      assertThat(got[1][h]).as("the receiver's own layer sends nothing to it").isNaN();
    }
    assertThat(main.session().measures().values()).extracting(io.headscope.app.gui.session.HeadMeasure::name)
        .contains("previous-token detector (Circuits)", "duplicate-token detector (Circuits)",
            "induction detector (Circuits)");
  }

  @Test
  void anotherModelTakesTheEdgesTheWeightsAndTheDetectorsAway() {
    Path other = TinyBert.create(2, 3, 8).writeTo(dir.resolve("other")).config().getParent();
    MainViewModel own = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache2")));
    own.textAProperty().set(CLEAN);
    own.loadModel(dir.resolve("tiny").toString());
    own.analyse();
    CircuitsViewModel vm = new CircuitsViewModel(own.session());
    String idle = vm.statusProperty().get();
    vm.corruptedProperty().set(CORRUPTED);
    vm.targetProperty().set("she");
    vm.contrastProperty().set("he");
    vm.run();
    vm.computeWeights();
    assertThat(vm.resultProperty().get()).isNotNull();
    assertThat(own.session().measures()).containsKeys("circuits-induction");
    own.loadModel(other.toString());
    assertThat(vm.resultProperty().get()).isNull();
    assertThat(vm.weightsProperty().get()).isNull();
    assertThat(vm.shownProperty().get()).isEmpty();
    assertThat(vm.statusProperty().get()).isEqualTo(idle);
    assertThat(own.session().measures()).doesNotContainKeys("circuits-previous", "circuits-duplicate",
        "circuits-induction");
  }

  @Test
  void withoutTheContrastTheStatusSaysWhatToType() {
    CircuitsViewModel vm = new CircuitsViewModel(main.session());
    vm.corruptedProperty().set(CORRUPTED);
    vm.targetProperty().set("she");
    vm.contrastProperty().set("");
    vm.run();
    assertThat(vm.resultProperty().get()).isNull();
    assertThat(vm.statusProperty().get()).contains("contrast");
  }

  /** Two more corrupted inputs of the clean input's length (the cue words swapped other ways). */
  static final List<String> SET = List.of(CORRUPTED, "the king was in paris and [MASK] was a king .",
      "the queen was in paris and [MASK] was a queen .");

  private static TargetMetric sheHe(BertModel m) {
    return new TargetMetric(TargetMetric.Kind.LOGIT_DIFF, m.tokenizer().singleTokenId("she"),
        m.tokenizer().singleTokenId("he"));
  }

  private static CircuitsViewModel ranWith(Ablation a, String set) {
    CircuitsViewModel vm = new CircuitsViewModel(main.session());
    vm.corruptedProperty().set(CORRUPTED);
    vm.targetProperty().set("she");
    vm.contrastProperty().set("he");
    vm.ablationProperty().set(a);
    vm.corruptedSetProperty().set(set);
    vm.run();
    assertThat(vm.resultProperty().get()).as(vm.statusProperty().get()).isNotNull();
    return vm;
  }

  @Test
  void meanAblationOverOneCorruptedInputIsCorruptedAblationWhereTheProductsAreBatchInvariant() {
    BertModel m = main.session().model();
    CircuitsViewModel vm = ranWith(Ablation.MEAN, CORRUPTED + "\n\n");
    CircuitsViewModel.Result r = vm.resultProperty().get();
    assertThat(r.analysis().ablation()).isEqualTo(Ablation.MEAN);
    assertThat(r.ablationName()).isEqualTo("mean over 1 corrupted input");
    assertThat(r.other().analysis().ablation()).isEqualTo(Ablation.CORRUPTED);
    // the screen's numbers are the service's, run on the same batch: the same bits
    PatchInputs in = PatchInputs.of(m, CLEAN, CORRUPTED);
    EdgeScores mean = EdgeAnalysis.of(m, in, sheHe(m), Ablation.MEAN, List.of(m.encode(CORRUPTED, null))).eap();
    assertThat(r.scores().scores()).containsExactly(mean.scores(), within(0.0));
    EdgeScores corr = EdgeAnalysis.of(m, in, sheHe(m), Ablation.CORRUPTED, List.of()).eap();
    assertThat(r.other().scores().scores()).containsExactly(corr.scores(), within(0.0));
    // Mean over one input runs the batch [clean, corrupted, corrupted], corrupted ablation [clean, corrupted]: the
    // same outputs to the bit only where the engine's products do not depend on the batch's size (Intel in MKL's
    // strict mode); there the two ablations are one and the same arithmetic after the run, so equal scores,
    // curve and every-edge-ablated metric. Elsewhere (AMD, the AVX2 leg) the rows' bits move with the batch and
    // EAP carries that through a gradient no outside bound follows, so the equality is asked only where it holds.
    if (m.batchInvariant()) {
      assertThat(r.scores().scores()).containsExactly(r.other().scores().scores(), within(0.0));
      assertThat(r.faithfulness().empty()).isEqualTo(r.other().faithfulness().empty());
      assertThat(r.faithfulness().points()).isEqualTo(r.other().faithfulness().points());
    }
    assertThat(CircuitsViewModel.comparison(r)).startsWith("Ablation mean over 1 corrupted input vs corrupted:");
  }

  @Test
  void meanAblationOverThreeInputsIsTheServicesAndChangesTheAnswer() {
    BertModel m = main.session().model();
    CircuitsViewModel vm = ranWith(Ablation.MEAN, String.join("\n", SET));
    CircuitsViewModel.Result r = vm.resultProperty().get();
    PatchInputs in = PatchInputs.of(m, CLEAN, CORRUPTED);
    EdgeAnalysis a = EdgeAnalysis.of(m, in, sheHe(m), Ablation.MEAN,
        SET.stream().map(t -> m.encode(t, null)).toList());
    EdgeScores want = a.eap();
    assertThat(r.ablationName()).isEqualTo("mean over 3 corrupted inputs");
    assertThat(r.scores().ablation()).isEqualTo(Ablation.MEAN);
    assertThat(r.scores().scores()).containsExactly(want.scores(), within(0.0));
    // each point of the curve: the service's circuit of the top N edges, every edge outside it mean-ablated
    for (Faithfulness.Point p : r.faithfulness().points()) {
      assertThat(p.metric()).isEqualTo(a.circuitMetric(want.topEdges(p.edges())));
    }
    assertThat(r.faithfulness().empty()).isEqualTo(a.empty());
    // the choice changes the answer: with every edge ablated the two runs are different inputs' worth of outputs
    // (the corrupted run's against the mean of three), far apart next to float32 rounding of a metric this size
    double corr = r.other().faithfulness().empty();
    assertThat(r.faithfulness().empty()).isNotCloseTo(corr, within(1e-3 * (1 + Math.abs(corr))));
    String c = CircuitsViewModel.comparison(r);
    assertThat(c).contains("mean over 3 corrupted inputs vs corrupted").contains(String.format(java.util.Locale.ROOT,
        "%.3f vs %.3f", r.faithfulness().empty(), corr));
    assertThat(vm.statusProperty().get()).contains("(mean over 3 corrupted inputs ablation)");

    // the clicked edge: its exact patch under each ablation, named
    int i = r.scores().top(1)[0];
    CircuitEdge e = r.scores().edges().get(i);
    vm.selectEdge(i);
    assertThat(vm.checkProperty().get().exact()).isEqualTo(a.metricWithout(List.of(e)) - a.clean());
    assertThat(vm.otherCheckProperty().get().exact())
        .isEqualTo(r.other().analysis().metricWithout(List.of(e)) - r.other().analysis().clean());
    assertThat(vm.otherCheckProperty().get().estimate()).isEqualTo(r.other().scores().score(i));
    assertThat(vm.statusProperty().get()).startsWith(e.label() + ": exact patch").contains("mean over 3 corrupted "
        + "inputs ablation").contains("With corrupted ablation: exact");
  }

  @Test
  void meanAblationWithoutASetOrWithAnInputOfAnotherLengthIsOneLine() {
    CircuitsViewModel vm = new CircuitsViewModel(main.session());
    vm.corruptedProperty().set(CORRUPTED);
    vm.targetProperty().set("she");
    vm.contrastProperty().set("he");
    vm.ablationProperty().set(Ablation.MEAN);
    vm.run();
    assertThat(vm.resultProperty().get()).isNull();
    assertThat(vm.statusProperty().get()).startsWith("Mean ablation averages over a set").doesNotContain("\n");
    vm.corruptedSetProperty().set(CORRUPTED + "\nthe king was in paris .");
    vm.run();
    assertThat(vm.resultProperty().get()).isNull();
    assertThat(vm.statusProperty().get()).contains("Corrupted set, line 2:").doesNotContain("\n")
        .doesNotContain("Exception");
  }

  @Test
  void onADecoderTheScreenScoresTheNextTokenAsTheServiceDoes() {
    Path gpt2 = dir.resolve("gpt2");
    io.headscope.model.testing.families.FamilyModelFolders.write("gpt2", gpt2, 5);
    MainViewModel own = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache3")));
    String clean = "x y x y x y x";
    String corrupted = "x y x y y y x";
    own.textAProperty().set(clean);
    own.loadModel(gpt2.toString());
    own.analyse();
    BertModel m = own.session().model();
    assertThat(m).as(own.statusProperty().get()).isNotNull();
    CircuitsViewModel vm = new CircuitsViewModel(own.session());
    vm.corruptedProperty().set(corrupted);
    vm.targetProperty().set("x");
    vm.contrastProperty().set("y");
    vm.corruptedSetProperty().set(corrupted + "\ny y x y x y x");
    vm.run();
    CircuitsViewModel.Result r = vm.resultProperty().get();
    assertThat(r).as(vm.statusProperty().get()).isNotNull();
    TargetMetric metric = new TargetMetric(TargetMetric.Kind.LOGIT_DIFF, m.tokenizer().singleTokenId("x"),
        m.tokenizer().singleTokenId("y"));
    EdgeScores want = EdgeAnalysis.of(m, PatchInputs.of(m, clean, corrupted), metric, Ablation.CORRUPTED, List.of())
        .eap();
    assertThat(r.scores().scores()).containsExactly(want.scores(), within(0.0));
    assertThat(r.other().ablationName()).isEqualTo("mean over 2 corrupted inputs");
    assertThat(CircuitsViewModel.comparison(r)).startsWith("Ablation corrupted vs mean over 2 corrupted inputs:");
  }

  @Test
  void anEncoderDecoderOpensInAllHeadsOnlyAndTheScreenSaysWhyInOneLine() {
    Path t5 = io.headscope.model.encoderdecoders.EncoderDecoderFolders.write("t5", dir.resolve("t5"), 21);
    MainViewModel own = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache4")));
    own.textAProperty().set(CLEAN);
    own.loadModel(t5.toString());
    // the app opens a T5 with its encoder, decoder and cross maps under All heads; no single-stack model is set
    assertThat(own.session().model()).isNull();
    assertThat(own.session().twoStacks()).isNotNull();
    CircuitsViewModel vm = new CircuitsViewModel(own.session());
    String idle = vm.statusProperty().get();
    assertThat(idle).contains("encoder-decoder").contains("single-stack").doesNotContain("\n");
    vm.corruptedProperty().set(CORRUPTED);
    vm.targetProperty().set("she");
    vm.contrastProperty().set("he");
    vm.run();
    assertThat(vm.resultProperty().get()).isNull();
    assertThat(vm.statusProperty().get()).isEqualTo(idle);
  }
}
