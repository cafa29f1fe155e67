package io.headscope.app.gui;

import io.headscope.analysis.heads.HeadClassifier;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.app.gui.exec.DirectWorker;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.gui.predict.PredictionRow;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.FakeHub;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The main view model without a window: same-thread worker, a real (tiny) model on disk. */
class MainViewModelTest {
  @TempDir static Path dir;
  static Path tiny;
  static Path tinyClassifier;

  @BeforeAll
  static void writeModels() {
    tiny = TinyBert.create(2, 3, 7).writeTo(dir.resolve("tiny")).config().getParent();
    tinyClassifier = TinyBert.create(2, 2, 9).withClassifier("neg", "pos").writeTo(dir.resolve("tinycls"))
        .config().getParent();
  }

  private MainViewModel loaded(Path model) {
    MainViewModel vm = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    vm.textAProperty().set("the cat sat on the [MASK] .");
    vm.loadModel(model.toString());
    return vm;
  }

  @Test
  void loadingAModelAdaptsTheShapeAndTracesTheSentence() {
    MainViewModel vm = loaded(tiny);
    assertThat(vm.layersProperty().get()).isEqualTo(2);
    assertThat(vm.headsProperty().get()).isEqualTo(3);
    AttentionTrace t = vm.traceProperty().get();
    assertThat(t.tokens()).containsSequence("the", "[MASK]", ".", "[SEP]");
    assertThat(vm.predictionsProperty()).hasSize(1);
    assertThat(vm.predictionsProperty().get(0).changed()).isFalse();
    assertThat(vm.busyProperty().get()).isFalse();
    assertThat(vm.errorProperty().get()).isNull();
  }

  /**
   * Finite but huge weights (layer 2's feed-forward sums to +Inf: see NonFiniteActivationTest) are
   * reported in the window's one-line error, not shown as maps and predictions of NaN (issue 39, G07).
   */
  @Test
  void aForwardPassThatOverflowsIsReportedNotShown() {
    Path huge = TinyBert.create(2, 2, 5)
        .edit("encoder.layer.1.intermediate.dense.bias", b -> java.util.Arrays.fill(b, 3e38f))
        .edit("encoder.layer.1.output.dense.weight", w -> java.util.Arrays.fill(w, 1f))
        .writeTo(dir.resolve("huge")).config().getParent();
    MainViewModel vm = loaded(huge);
    assertThat(vm.errorProperty().get()).startsWith("The forward pass produced NaN/Inf at layer 2").doesNotContain("\n");
    assertThat(vm.traceProperty().get()).isNull();
    assertThat(vm.predictionsProperty()).isEmpty();
  }

  /** A long input takes tens of seconds on a busy machine: the status line and the bar follow each step. */
  @Test
  void aRunSaysWhichStepItIsOnWithTheBarRising() {
    MainViewModel vm = loaded(tiny);
    List<String> said = new java.util.ArrayList<>();
    List<Double> bar = new java.util.ArrayList<>();
    vm.statusProperty().addListener((o, a, b) -> said.add(b));
    vm.progressProperty().addListener((o, a, b) -> bar.add(b.doubleValue()));
    vm.textAProperty().set("the dog ran to the [MASK] .");
    vm.analyse();
    // a new input: the intact pass, then the categories (nothing is off)
    List<String> steps = said.stream().filter(x -> x.contains("(step ")).toList();
    assertThat(steps).hasSize(2);
    assertThat(steps.get(0)).contains("tokens: the intact model's maps (step 1 of 2)");
    assertThat(steps.get(1)).contains("the categories of 6 heads (step 2 of 2)");
    assertThat(said.get(said.size() - 1)).startsWith(vm.traceProperty().get().tokens().size() + " tokens");
    assertThat(bar).contains(0.0, 0.5);

    // a head off on the same input: only the pass with it off is left to run
    said.clear();
    vm.toggleHead(new io.headscope.model.core.Head(1, 0));
    assertThat(said.stream().filter(x -> x.contains("(step ")).toList())
        .containsExactly(said.stream().filter(x -> x.contains("(step ")).findFirst().orElseThrow())
        .allMatch(x -> x.contains("the maps with heads switched off (step 1 of 1)"));
  }

  /** The Heads menu's choice re-sorts the heads of the current input without running the model again. */
  @Test
  void choosingTheRuleReclassifiesTheCurrentInputAsTheRuleDoes() {
    MainViewModel vm = loaded(tiny);
    AttentionTrace intact = vm.traceProperty().get();
    assertThat(vm.methodProperty().get()).isEqualTo(HeadClassifier.Method.LEARNED);
    assertThat(vm.scoresProperty()).isEqualTo(new HeadClassifier(HeadClassifier.Method.LEARNED).classifyAll(intact));
    vm.methodProperty().set(HeadClassifier.Method.RULE);
    assertThat(vm.traceProperty().get()).isSameAs(intact);
    assertThat(vm.scoresProperty()).isEqualTo(new HeadClassifier(HeadClassifier.Method.RULE).classifyAll(intact));
    assertThat(vm.classifier().method()).isEqualTo(HeadClassifier.Method.RULE);
  }

  @Test
  void switchingAHeadOffReRunsWithTheMaskAndKeepsTheIntactTrace() {
    MainViewModel vm = loaded(tiny);
    AttentionTrace intact = vm.traceProperty().get();
    vm.toggleHead(new Head(1, 2));
    assertThat(vm.maskProperty().get().off()).containsExactly(new Head(1, 2));
    assertThat(vm.traceProperty().get()).isSameAs(intact);
    AttentionTrace ablated = vm.ablatedProperty().get();
    assertThat(ablated.mask().off()).containsExactly(new Head(1, 2));
    // the same pass run directly on the engine gives the numbers the panel shows
    try (BertModel m = BertModel.load(new ModelRepository(dir.resolve("cache")).folder(tiny))) {
      AttentionTrace direct = m.trace(io.headscope.model.TraceRequest.of(intact.encoding())
          .mask(HeadMask.of(Set.of(new Head(1, 2)), HeadMask.Mode.ZERO)).top(5)).get(0);
      PredictionRow row = vm.predictionsProperty().get(0);
      assertThat(row.changed()).isTrue();
      assertThat(row.after().get(0).token()).isEqualTo(direct.predictions().get(0).top().get(0).token());
      assertThat(row.after().get(0).probability())
          .isCloseTo(direct.predictions().get(0).top().get(0).probability(), org.assertj.core.data.Offset.offset(1e-6));
      assertThat(row.after().get(0).probability()).isNotEqualTo(row.before().get(0).probability());
    }
    vm.toggleHead(new Head(1, 2));
    assertThat(vm.maskProperty().get().isEmpty()).isTrue();
    assertThat(vm.ablatedProperty().get()).isSameAs(vm.traceProperty().get());
  }

  @Test
  void aLayerSwitchesAtOnceAndTheSameCommandSwitchesItBackOn() {
    MainViewModel vm = loaded(tiny);
    vm.toggleHead(new Head(0, 1));
    vm.toggleLayer(0);
    assertThat(vm.maskProperty().get().off()).containsExactlyInAnyOrder(new Head(0, 0), new Head(0, 1), new Head(0, 2));
    vm.toggleLayer(0);
    assertThat(vm.maskProperty().get().isEmpty()).isTrue();
  }

  @Test
  void pickedHeadsSwitchTogetherAndUniformModeReRuns() {
    MainViewModel vm = loaded(tiny);
    vm.toggleInSelection(new Head(0, 0));
    vm.toggleInSelection(new Head(1, 1));
    vm.toggleSelectedHeads();
    assertThat(vm.maskProperty().get().off()).containsExactlyInAnyOrder(new Head(0, 0), new Head(1, 1));
    double zeroTop = vm.predictionsProperty().get(0).after().get(0).probability();
    vm.setMode(HeadMask.Mode.UNIFORM);
    assertThat(vm.ablatedProperty().get().mask().mode()).isEqualTo(HeadMask.Mode.UNIFORM);
    assertThat(vm.predictionsProperty().get(0).after().get(0).probability()).isNotEqualTo(zeroTop);
  }

  @Test
  void aFolderThatIsNotAModelReportsOneLineAndKeepsThePreviousModel() {
    MainViewModel vm = loaded(tiny);
    BertModel before = vm.modelProperty().get();
    vm.loadModel(dir.resolve("no-such-folder").toString());
    assertThat(vm.errorProperty().get()).startsWith("No model").doesNotContain("\n");
    assertThat(vm.modelProperty().get()).isSameAs(before);
    vm.acknowledgeError();
    vm.textAProperty().set("the dog ran .");
    vm.analyse();
    assertThat(vm.traceProperty().get().tokens()).contains("dog");
    assertThat(vm.errorProperty().get()).isNull();
  }

  @Test
  void switchingModelsResetsTheSwitchesAndShowsClassProbabilities() {
    MainViewModel vm = loaded(tiny);
    vm.toggleHead(new Head(1, 2));
    vm.loadModel(tinyClassifier.toString());
    assertThat(vm.headsProperty().get()).isEqualTo(2);
    assertThat(vm.maskProperty().get().isEmpty()).isTrue();
    assertThat(vm.classesProperty()).extracting(r -> r.label()).containsExactly("neg", "pos");
    vm.toggleHead(new Head(0, 0));
    var c = vm.classesProperty().get(0);
    assertThat(c.after()).isNotEqualTo(c.before());
  }

  @Test
  void anEmptySentenceClearsTheResultsInsteadOfRunning() {
    MainViewModel vm = loaded(tiny);
    vm.textAProperty().set("   ");
    vm.analyse();
    assertThat(vm.traceProperty().get()).isNull();
    assertThat(vm.predictionsProperty()).isEmpty();
    assertThat(vm.statusProperty().get()).contains("Type a sentence");
  }

  @Test
  void aHubModelIsDownloadedWithProgressAndAFailedOneKeepsTheLoadedModel() {
    try (FakeHub hub = FakeHub.start().serve("test-org/tiny", "main", tiny)) {
      ModelRepository repo = new ModelRepository(dir.resolve("hub-cache"), hub.url(), false);
      MainViewModel vm = new MainViewModel(new DirectWorker(), repo);
      vm.textAProperty().set("the cat sat on the [MASK] .");
      vm.loadModel("hf:test-org/tiny");
      assertThat(vm.errorProperty().get()).isNull();
      assertThat(vm.modelNameProperty().get()).isEqualTo("hf:test-org/tiny");
      assertThat(vm.traceProperty().get().attention()).hasDimensions(2, 3);
      assertThat(hub.requests()).isNotEmpty();

      vm.loadModel("hf:test-org/missing");
      assertThat(vm.errorProperty().get()).contains("test-org/missing");
      assertThat(vm.modelNameProperty().get()).isEqualTo("hf:test-org/tiny");
      assertThat(vm.traceProperty().get()).isNotNull();
    }
  }
}
