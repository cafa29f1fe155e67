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

  @Test
  void offsetsAreNamedForPeople() {
    assertThat(HeadFactsViewModel.offsetName(-1)).isEqualTo("previous token");
    assertThat(HeadFactsViewModel.offsetName(0)).isEqualTo("itself");
    assertThat(HeadFactsViewModel.offsetName(1)).isEqualTo("next token");
  }
}
