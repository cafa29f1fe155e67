package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.analysis.saliency.Baseline;
import io.headscope.analysis.saliency.SaliencyMetric;
import io.headscope.analysis.saliency.TokenSaliency;
import io.headscope.app.gui.exec.DirectWorker;
import io.headscope.app.gui.flow.FlowViewModel;
import io.headscope.app.gui.lens.LensViewModel;
import io.headscope.app.gui.linguistics.LinguisticsViewModel;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.gui.patch.PatchViewModel;
import io.headscope.app.gui.screen.ScreenModel;
import io.headscope.app.gui.sweep.SweepViewModel;
import io.headscope.model.BertModel;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.testing.families.FamilyModelFolders;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 40: after a model switch, no screen keeps a result, a summary or an error of the earlier model (the lens
 * said "'she' is the top token from layer 11" on GPT-2; the sweep kept its input line; Linguistics kept
 * "60 sentences" over an empty grid). And the Logit lens runs on a model without a mask token (GPT-2): the
 * saliency starts from the zero baseline, the only one offered there.
 */
class ModelSwitchClearsScreensTest {
  static final Path TREEBANKS = Path.of("..", "analysis", "src", "test", "resources", "treebanks");
  @TempDir static Path dir;

  @Test
  void everyScreensResultAndStatusGoWithTheModelThatMadeThem() {
    Path bert = TinyBert.create(2, 3, 7).writeTo(dir.resolve("bert")).config().getParent();
    Path roberta = dir.resolve("roberta");
    FamilyModelFolders.write("roberta", roberta, 5);
    MainViewModel main = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    main.textAProperty().set("the king said that [MASK] was in paris .");
    main.loadModel(bert.toString());
    main.analyse();

    LensViewModel lens = new LensViewModel(main.session());
    SweepViewModel sweep = new SweepViewModel(main.session());
    LinguisticsViewModel ling = new LinguisticsViewModel(main.session());
    FlowViewModel flow = new FlowViewModel(main.session());
    PatchViewModel patch = new PatchViewModel(main.session());
    Map<String, ScreenModel<?>> screens = new LinkedHashMap<>();
    screens.put("lens", lens);
    screens.put("sweep", sweep);
    screens.put("linguistics", ling);
    screens.put("flow", flow);
    screens.put("patch", patch);
    Map<String, String> idle = new LinkedHashMap<>();
    screens.forEach((k, v) -> idle.put(k, v.statusProperty().get()));

    lens.targetProperty().set("she");
    lens.run();
    sweep.run();
    ling.open(TREEBANKS.resolve("syntax.conllu"));
    flow.compute();
    patch.run(); // no corrupted input typed: it says so in its status line, an old-model line all the same
    for (String k : new String[] {"lens", "sweep", "linguistics", "flow"}) {
      assertThat(screens.get(k).resultProperty().get()).as(k + ": " + screens.get(k).statusProperty().get()).isNotNull();
    }
    screens.forEach((k, v) -> assertThat(v.statusProperty().get()).as(k).isNotEqualTo(idle.get(k)));
    assertThat(sweep.inputProperty().get()).isNotEmpty();
    assertThat(lens.statusProperty().get()).contains("At [MASK]");

    assertThat(main.predictions().followHeadingProperty().get()).isEqualTo("Follow a word at the [MASK]s");
    main.loadModel(roberta.toString());
    assertThat(main.session().model().name()).isNotEqualTo("bert");
    // the panel names RoBERTa's own mask
    assertThat(main.predictions().followHeadingProperty().get()).isEqualTo("Follow a word at the <mask>s");
    screens.forEach((k, v) -> {
      assertThat(v.resultProperty().get()).as(k).isNull();
      assertThat(v.statusProperty().get()).as(k).isEqualTo(idle.get(k));
      assertThat(v.progressProperty().get()).as(k).isZero();
    });
    assertThat(sweep.inputProperty().get()).isEmpty();
    assertThat(sweep.titleProperty().get()).isEmpty();
    assertThat(ling.relations()).isEmpty();
  }

  @Test
  void theLogitLensRunsOnGpt2FromTheZeroBaselineAndOffersOnlyIt() {
    Path bert = TinyBert.create(2, 3, 7).writeTo(dir.resolve("bert2")).config().getParent();
    Path gpt2 = dir.resolve("gpt2");
    FamilyModelFolders.write("gpt2", gpt2, 5);
    MainViewModel main = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache2")));
    main.textAProperty().set("the cat sat");
    main.loadModel(bert.toString());
    main.analyse();
    LensViewModel vm = new LensViewModel(main.session());
    assertThat(vm.baselines()).containsExactly(Baseline.MASK, Baseline.ZERO);
    assertThat(vm.baselineProperty().get()).isEqualTo(Baseline.MASK);

    main.loadModel(gpt2.toString());
    main.analyse();
    BertModel m = main.session().model();
    assertThat(m.maskToken()).isNull();
    assertThat(vm.baselines()).containsExactly(Baseline.ZERO);
    assertThat(main.predictions().followHeadingProperty().get()).isEqualTo("Follow a word as the next token");
    assertThat(vm.baselineProperty().get()).isEqualTo(Baseline.ZERO);
    vm.targetProperty().set("ca");
    for (boolean ig : new boolean[] {false, true}) {
      vm.integratedProperty().set(ig);
      vm.run();
      LensViewModel.Result r = vm.resultProperty().get();
      assertThat(r).as(vm.statusProperty().get()).isNotNull();
      var input = main.session().trace().encoding();
      TokenSaliency s = new TokenSaliency(m);
      SaliencyMetric metric = SaliencyMetric.of(m.tokenizer().singleTokenId("ca"), -1);
      double[] want = ig ? s.integratedGradients(input, metric, Baseline.ZERO, TokenSaliency.DEFAULT_STEPS, x -> { })
          .scores() : s.gradientTimesInput(input, metric, Baseline.ZERO).scores();
      assertThat(r.saliency().scores()).containsExactly(want);
      assertThat(vm.statusProperty().get()).contains("zero embeddings").doesNotContain("no mask token");
    }
  }
}
