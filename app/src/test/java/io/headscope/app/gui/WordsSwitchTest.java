package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.analysis.linguistics.WordTrace;
import io.headscope.app.gui.exec.DirectWorker;
import io.headscope.app.gui.head.HeadViewModel;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.render.HeadMatrix;
import io.headscope.app.render.HeadMatrix.PairFilter;
import io.headscope.app.render.MapsShown;
import io.headscope.model.AttentionTrace;
import io.headscope.model.core.Head;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The wordpieces | words switch in the head view's model, without a window. */
class WordsSwitchTest {
  @TempDir Path dir;

  @Test
  void theWordsSwitchShowsWordLabelsAndWordMapsAndCutsThePairAtTheWordOfTheSecondSentence() {
    Path tiny = TinyBert.create(2, 2, 3).writeTo(dir.resolve("tiny")).config().getParent();
    MainViewModel main = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    main.textAProperty().set("the cats walked .");
    main.textBProperty().set("a dog ran .");
    main.loadModel(tiny.toString());
    HeadViewModel vm = new HeadViewModel(main.session());
    main.select(new Head(1, 1));
    AttentionTrace t = main.traceProperty().get();
    assertThat(vm.matrixProperty().get().rowTokens()).contains("##s");

    main.session().wordsShownProperty().set(true);
    HeadMatrix m = vm.matrixProperty().get();
    assertThat(m.words()).isTrue();
    assertThat(m.rowTokens()).containsExactly("[CLS]", "the", "cats", "walked", ".", "[SEP]", "a", "dog", "ran",
        ".", "[SEP]");
    assertThat(vm.titleProperty().get()).endsWith("words");
    float[][] expected = WordTrace.of(t).attention()[1][1];
    for (int i = 0; i < m.rows(); i++) {
      for (int j = 0; j < m.cols(); j++) {
        assertThat((double) m.values()[i][j]).isCloseTo(expected[i][j], within(1e-7));
      }
    }
    vm.pointAt(2, 3);
    assertThat(vm.hoverProperty().get()).contains("query word 2 \"cats\"", "key word 3 \"walked\"");
    vm.pointAtToken(2);
    assertThat(vm.hoverProperty().get()).contains("\"cats\" attends most to");

    vm.filterProperty().set(PairFilter.A_B);
    assertThat(vm.matrixProperty().get().rowTokens()).containsExactly("[CLS]", "the", "cats", "walked", ".", "[SEP]");
    assertThat(vm.matrixProperty().get().colTokens()).containsExactly("a", "dog", "ran", ".", "[SEP]");

    // the difference of word maps with no head off is zero, as on wordpieces
    vm.filterProperty().set(PairFilter.ALL);
    main.session().mapsShownProperty().set(MapsShown.DIFFERENCE);
    assertThat(vm.matrixProperty().get().max()).isZero();
    main.session().wordsShownProperty().set(false);
    assertThat(vm.matrixProperty().get().rowTokens()).contains("##s");
  }
}
