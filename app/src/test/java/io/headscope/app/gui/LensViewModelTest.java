package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.analysis.lens.LensResult;
import io.headscope.analysis.lens.LensRow;
import io.headscope.analysis.lens.LogitLens;
import io.headscope.analysis.saliency.Baseline;
import io.headscope.analysis.saliency.SaliencyMetric;
import io.headscope.analysis.saliency.SaliencyResult;
import io.headscope.analysis.saliency.TokenSaliency;
import io.headscope.app.gui.exec.DirectWorker;
import io.headscope.app.gui.lens.LensViewModel;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.model.BertModel;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Logit lens screen shows what {@code headscope lens} and {@code saliency} compute on the main sentence. */
class LensViewModelTest {
  @TempDir static Path dir;
  static MainViewModel main;

  @BeforeAll
  static void load() {
    Path tiny = TinyBert.create(2, 3, 7).writeTo(dir.resolve("tiny")).config().getParent();
    main = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    main.textAProperty().set("the king said that [MASK] was in paris .");
    main.loadModel(tiny.toString());
    main.analyse();
  }

  @Test
  void theRowsAndTheStripAreTheCommandsNumbers() {
    LensViewModel vm = new LensViewModel(main.session());
    vm.run();
    assertThat(vm.statusProperty().get()).startsWith("Type the word");
    vm.targetProperty().set("she");
    vm.contrastProperty().set("he");
    vm.run();
    LensViewModel.Result r = vm.resultProperty().get();
    assertThat(r).as(vm.statusProperty().get()).isNotNull();
    BertModel m = main.session().model();
    var input = main.session().trace().encoding();
    long she = m.tokenizer().singleTokenId("she");
    long he = m.tokenizer().singleTokenId("he");
    LensResult want = new LogitLens(m).run(input, she, he, 5);
    int mask = input.tokens().indexOf("[MASK]");
    assertThat(vm.firstPosition()).isEqualTo(mask);
    var rows = vm.rows(mask);
    assertThat(rows).hasSize(3); // the embeddings and two layers
    for (LensRow row : rows) {
      LensRow w = want.rows().stream().filter(x -> x.layer() == row.layer() && x.position() == mask).findFirst()
          .orElseThrow();
      assertThat(row.top()).isEqualTo(w.top());
      assertThat(row.targetProb()).isEqualTo(w.targetProb());
      assertThat(row.logitDiff()).isEqualTo(w.logitDiff());
    }
    SaliencyResult s = new TokenSaliency(m).gradientTimesInput(input, SaliencyMetric.of(she, he), Baseline.MASK);
    assertThat(r.saliency().scores()).containsExactly(s.scores());
    assertThat(vm.statusProperty().get()).contains("At [MASK]").contains("Saliency (grad-x-input, from [MASK] (words masked))");

    // the attribution grid is the analysis's own numbers, per head, and a click opens the head
    var dla = new io.headscope.analysis.lens.DirectLogitAttribution(m).run(input, she, he);
    assertThat(r.dla().rows()).isEqualTo(dla.rows());
    double[][] grid = vm.dlaGrid();
    assertThat(grid).hasDimensions(2, 3);
    for (var row : dla.rows()) {
      if (row.component().equals("head")) {
        assertThat(grid[row.layer() - 1][row.head() - 1]).isEqualTo(row.difference());
      }
    }
    vm.dlaShownProperty().set(LensViewModel.DlaShown.TARGET);
    assertThat(vm.dlaGrid()[1][2]).isEqualTo(dla.rows().stream().filter(x -> x.component().equals("head")
        && x.layer() == 2 && x.head() == 3).findFirst().orElseThrow().target());
    vm.dlaShownProperty().set(LensViewModel.DlaShown.CONTRAST);
    var h12 = dla.rows().stream().filter(x -> x.component().equals("head") && x.layer() == 1 && x.head() == 2)
        .findFirst().orElseThrow();
    assertThat(vm.dlaGrid()[0][1]).isCloseTo(h12.contrast(), org.assertj.core.api.Assertions.within(1e-12));
    vm.dlaShownProperty().set(LensViewModel.DlaShown.DIFFERENCE);
    assertThat(vm.dlaNote()).contains("frozen-scale linearisation").contains("not the effect of removing a head")
        .contains(String.format(java.util.Locale.ROOT, "sum %+.3f", dla.sum(mask, true)));
    assertThat(vm.describe(new io.headscope.model.core.Head(0, 1))).startsWith("Head 1-2: ")
        .contains(String.format(java.util.Locale.ROOT, "%+.3f", h12.target()));
    vm.select(new io.headscope.model.core.Head(1, 2));
    assertThat(main.session().selected()).isEqualTo(new io.headscope.model.core.Head(1, 2));
    // the saliency goes to the session, for the head view's strip
    assertThat(main.session().saliency().result().scores()).containsExactly(s.scores());
    assertThat(main.session().saliency().isFor(input.ids())).isTrue();

    vm.integratedProperty().set(true);
    vm.run();
    SaliencyResult ig = vm.resultProperty().get().saliency();
    assertThat(ig.steps()).isEqualTo(TokenSaliency.DEFAULT_STEPS);
    assertThat(vm.statusProperty().get()).contains("completeness error");
  }

  @Test
  void completenessIsExplainedAndCalledUnreliableAboveFivePercent() {
    // hand-checked: scores summing to 2 against a move of 0.5 - 0 miss it by |2 - 0.5| / 0.5 = 300%
    SaliencyResult bad = new SaliencyResult(java.util.List.of("a", "b"), new double[] {1, 1}, "ig", "zero", 50, 0.5, 0);
    assertThat(LensViewModel.completenessNote(bad)).contains("completeness error 300.00%").contains("unreliable")
        .contains("50 steps are too few").contains("--steps");
    // scores summing to 0.5 + 0.01 against 0.5: 2%, explained but not called unreliable
    SaliencyResult good = new SaliencyResult(java.util.List.of("a", "b"), new double[] {0.25, 0.26}, "ig", "zero", 50,
        0.5, 0);
    assertThat(LensViewModel.completenessNote(good)).contains("completeness error 2.00%")
        .contains("how far the scores' sum is from that move").doesNotContain("unreliable");
    // gradient x input claims no completeness
    assertThat(LensViewModel.completenessNote(new SaliencyResult(java.util.List.of("a"), new double[] {3}, "grad-x-input",
        "zero", 1, 0.5, 0))).isEmpty();
  }

  @Test
  void theTinyGpt2sIntegratedGradientsSayWhetherTheirSumCanBeRead() {
    // issue 40: 301% on the tiny GPT-2 with no word of what it means
    Path gpt2 = dir.resolve("gpt2");
    io.headscope.model.testing.families.FamilyModelFolders.write("gpt2", gpt2, 3);
    MainViewModel m = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache2")));
    m.textAProperty().set("the cat sat on the mat");
    m.loadModel(gpt2.toString());
    m.analyse();
    LensViewModel vm = new LensViewModel(m.session());
    vm.targetProperty().set("ca");
    vm.integratedProperty().set(true);
    vm.run();
    SaliencyResult ig = vm.resultProperty().get().saliency();
    // the error from its definition, in float64 from the result's own numbers
    double sum = 0;
    for (double x : ig.scores()) {
      sum += x;
    }
    double move = ig.metricInput() - ig.metricBaseline();
    double error = Math.abs(sum - move) / Math.abs(move);
    String status = vm.statusProperty().get();
    assertThat(status).contains(String.format(java.util.Locale.ROOT, "completeness error %.2f%%", 100 * error));
    if (error > LensViewModel.UNRELIABLE_ABOVE) {
      assertThat(status).contains("the scores are unreliable");
    } else {
      assertThat(status).contains("0 for the exact integral").doesNotContain("unreliable");
    }
  }
}
