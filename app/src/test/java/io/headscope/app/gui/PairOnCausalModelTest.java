package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.app.gui.exec.DirectWorker;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.testing.families.FamilyModelFolders;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A causal model has no format for a pair of sentences: opening one with a Pair typed dropped nothing and popped an
 * error dialog at every run. Its Pair field is now off and emptied, the first sentence runs, and a masked model
 * opened after it takes a pair again.
 */
class PairOnCausalModelTest {
  @TempDir static Path dir;

  @Test
  void aCausalModelRunsTheFirstSentenceWithItsPairFieldOff() {
    Path gpt2 = dir.resolve("gpt2");
    FamilyModelFolders.write("gpt2", gpt2, 5);
    Path bert = TinyBert.create(2, 3, 7).writeTo(dir.resolve("bert")).config().getParent();
    MainViewModel main = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    main.textAProperty().set("the cat sat on the mat .");
    main.textBProperty().set("the dog sat on the rug .");
    main.loadModel(bert.toString());
    assertThat(main.pairReadProperty().get()).isTrue();
    assertThat(main.session().trace().encoding().isPair()).isTrue();

    main.loadModel(gpt2.toString());
    assertThat(main.pairReadProperty().get()).isFalse();
    assertThat(main.textBProperty().get()).isEmpty();
    assertThat(main.session().errorProperty().get()).isNull();
    assertThat(main.session().trace()).isNotNull();
    assertThat(main.session().trace().tokens())
        .isEqualTo(main.session().model().encode("the cat sat on the mat .", null).tokens());

    main.loadModel(bert.toString());
    assertThat(main.pairReadProperty().get()).isTrue();
  }
}
