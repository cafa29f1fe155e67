package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.analysis.heads.HeadScore;
import io.headscope.analysis.heads.LayerTokenTypes;
import io.headscope.analysis.heads.TokenType;
import io.headscope.app.gui.exec.DirectWorker;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.gui.main.facts.HeadFactsViewModel;
import io.headscope.model.core.Head;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The head panels' state, without a window: the analysis module's numbers for the selected head. */
class HeadFactsViewModelTest {
  @TempDir static Path dir;
  static Path tiny;

  @BeforeAll
  static void model() {
    tiny = TinyBert.create(2, 3, 13).writeTo(dir.resolve("tiny")).config().getParent();
  }

  @Test
  void theSelectedHeadsScoreIsTheClassifiersAndLayersAverageTheirHeads() {
    MainViewModel main = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    HeadFactsViewModel vm = new HeadFactsViewModel(main);
    assertThat(vm.scoreProperty().get()).isNull();
    main.textAProperty().set("the cat sat on the mat .");
    main.loadModel(tiny.toString());
    main.select(new Head(1, 2));

    HeadScore expected = new HeadClassifier().classify(main.traceProperty().get(), new Head(1, 2));
    HeadScore shown = vm.scoreProperty().get();
    assertThat(shown.head()).isEqualTo(new Head(1, 2));
    assertThat(shown.category()).isEqualTo(expected.category());
    assertThat(shown.vertical()).isEqualTo(expected.vertical());
    assertThat(shown.stats()).isEqualTo(expected.stats());
    assertThat(vm.selectedLayer()).isEqualTo(1);

    assertThat(vm.layersProperty()).hasSize(2);
    LayerTokenTypes layer2 = vm.layersProperty().get(1);
    double sep = 0;
    double normSep = 0;
    for (int h = 0; h < 3; h++) {
      HeadScore s = main.score(new Head(1, h));
      sep += s.stats().sep() / 3;
      normSep += s.stats().normSep() / 3;
    }
    assertThat(layer2.weight().get(TokenType.SEP)).isCloseTo(sep, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(layer2.norm().get(TokenType.SEP)).isCloseTo(normSep, org.assertj.core.data.Offset.offset(1e-12));

    // switching the head off keeps the intact map's scores, flagged as such
    main.toggleHead(new Head(1, 2));
    assertThat(vm.selectedOffProperty().get()).isTrue();
    assertThat(vm.scoreProperty().get().stats()).isEqualTo(expected.stats());

    main.textAProperty().set("");
    main.analyse();
    assertThat(vm.scoreProperty().get()).isNull();
    assertThat(vm.layersProperty()).isEmpty();
  }

  /**
   * Under the learned model the panel's bars are its probabilities, whose largest is the grid's category and
   * confidence; under the rule there are none. The band share B is counted here from the map itself.
   */
  @Test
  void theBarsAreTheProbabilitiesBehindTheColourAndBIsCountedFromTheMap() {
    MainViewModel main = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    HeadFactsViewModel vm = new HeadFactsViewModel(main);
    assertThat(vm.probabilities()).isEmpty();
    assertThat(vm.shares()).isNull();
    main.textAProperty().set("the cat sat on the mat .");
    main.loadModel(tiny.toString());
    for (int layer = 0; layer < 2; layer++) {
      for (int head = 0; head < 3; head++) {
        Head h = new Head(layer, head);
        main.select(h);
        HeadScore shown = vm.scoreProperty().get();
        double[] p = vm.probabilities().orElseThrow();
        assertThat(java.util.Arrays.stream(p).sum()).isCloseTo(1, org.assertj.core.data.Offset.offset(1e-12));
        int best = 0;
        for (int c = 1; c < p.length; c++) {
          best = p[c] > p[best] ? c : best;
        }
        assertThat(best).isEqualTo(shown.category().ordinal());
        assertThat(p[best]).isCloseTo(shown.confidence(), org.assertj.core.data.Offset.offset(1e-12));

        float[][] map = main.traceProperty().get().map(h);
        int onBand = 0;
        for (int i = 0; i < map.length; i++) {
          double band = 0;
          for (int j = Math.max(0, i - 1); j <= Math.min(map.length - 1, i + 1); j++) {
            band += map[i][j];
          }
          onBand += band >= 0.5 ? 1 : 0;
        }
        assertThat(vm.shares().band()).isCloseTo(onBand / (double) map.length, org.assertj.core.data.Offset.offset(1e-12));
      }
    }
    main.methodProperty().set(HeadClassifier.Method.RULE);
    assertThat(vm.probabilities()).isEmpty();
  }

  @Test
  void offsetsAreNamedForPeople() {
    assertThat(HeadFactsViewModel.offsetName(-1)).isEqualTo("previous token");
    assertThat(HeadFactsViewModel.offsetName(0)).isEqualTo("itself");
    assertThat(HeadFactsViewModel.offsetName(1)).isEqualTo("next token");
  }

  @Test
  void aDecodersTokenTypesPerLayerAreTheFirstTokensShareFromItsMaps() {
    // issue 40/41: the per-layer token types were empty on a decoder; the first token (the attention sink) fills them
    Path gpt2 = dir.resolve("gpt2");
    io.headscope.model.testing.families.FamilyModelFolders.write("gpt2", gpt2, 3);
    MainViewModel main = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    HeadFactsViewModel vm = new HeadFactsViewModel(main);
    main.textAProperty().set("the cat sat on the mat , then it slept .");
    main.loadModel(gpt2.toString());
    assertThat(vm.categoriesWithheld()).isTrue();
    var trace = main.traceProperty().get();
    int layers = trace.layers();
    int heads = trace.heads();
    assertThat(vm.layersProperty()).hasSize(layers);
    java.util.List<String> tokens = trace.tokens();
    int n = tokens.size();
    // each share in float64 from the maps themselves: the mean over query rows of the weight on each key, summed
    // by key type, then the mean over the layer's heads. The summaries round each key's mean to float: n keys of
    // weight at most 1 each carry at most 2^-24 relative, so n * 2^-24 bounds a type's share (times 2 for the sum)
    double bound = 2 * n * Math.pow(2, -24);
    for (int l = 0; l < layers; l++) {
      double[] want = new double[3];
      for (int h = 0; h < heads; h++) {
        float[][] m = trace.map(new Head(l, h));
        for (int j = 0; j < n; j++) {
          double col = 0;
          for (int q = 0; q < n; q++) {
            col += m[q][j];
          }
          int type = j == 0 ? 0 : TokenType.of(tokens.get(j)) == TokenType.PUNCT ? 1 : 2;
          want[type] += col / n / heads;
        }
      }
      LayerTokenTypes got = vm.layersProperty().get(l);
      assertThat(got.norm()).as("no norm side from the summaries").isNull();
      assertThat(got.weight().cls()).isCloseTo(want[0], org.assertj.core.data.Offset.offset(bound));
      assertThat(got.weight().sep()).isZero();
      assertThat(got.weight().punct()).isCloseTo(want[1], org.assertj.core.data.Offset.offset(bound));
      assertThat(got.weight().other()).isCloseTo(want[2], org.assertj.core.data.Offset.offset(bound));
    }
    assertThat(tokens.stream().anyMatch(t -> TokenType.of(t) == TokenType.PUNCT)).as("the sentence has punctuation")
        .isTrue();
    assertThat(vm.chartNames().cls()).isEqualTo("first token (sink)");
    assertThat(vm.chartNames().sep()).isNull();
  }

  @Test
  void robertasTokenTypesAreNamedByItsOwnSpecials() {
    Path roberta = dir.resolve("roberta");
    io.headscope.model.testing.families.FamilyModelFolders.write("roberta", roberta, 3);
    MainViewModel main = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    HeadFactsViewModel vm = new HeadFactsViewModel(main);
    assertThat(vm.names()).isEqualTo(io.headscope.app.render.TokenTypeNames.BERT);
    main.textAProperty().set("the cat sat on the mat .");
    main.loadModel(roberta.toString());
    assertThat(vm.names()).isEqualTo(new io.headscope.app.render.TokenTypeNames("<s>", "</s>", true));
    assertThat(vm.names().label(TokenType.CLS)).isEqualTo("<s>");
    assertThat(vm.names().label(TokenType.PUNCT)).isEqualTo(". ,");
    assertThat(io.headscope.app.gui.main.MainView.tokenTypeColumns(vm.names())).startsWith("<s> weight", "</s> weight")
        .noneMatch(c -> c.contains("[CLS]") || c.contains("[SEP]"));
    main.loadModel(tiny.toString());
    assertThat(vm.names()).isEqualTo(io.headscope.app.render.TokenTypeNames.BERT);
  }
}
