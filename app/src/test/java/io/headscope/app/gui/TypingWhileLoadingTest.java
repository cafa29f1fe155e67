package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.app.gui.main.MainViewModel;
import io.headscope.model.AttentionTrace;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.testing.families.FamilyModelFolders;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sentence typed while another model loads is run on the model that loads, not on the one before: the input ran
 * on the old model (its maps shown under the new model's name) and the new model never read it. And of two loads
 * that overlap, the later one's model stays.
 */
class TypingWhileLoadingTest {
  @TempDir static Path dir;

  @Test
  void anInputTypedDuringALoadIsReadByTheModelThatLoads() {
    Path bert = TinyBert.create(2, 3, 7).writeTo(dir.resolve("bert")).config().getParent();
    Path roberta = dir.resolve("roberta");
    FamilyModelFolders.write("roberta", roberta, 5);
    QueuedWorker worker = new QueuedWorker();
    MainViewModel main = new MainViewModel(worker, new ModelRepository(dir.resolve("cache")));
    main.textAProperty().set("the cat sat on the mat .");
    main.loadModel(bert.toString());
    worker.runAll();
    assertThat(main.session().trace().tokens()).startsWith("[CLS]");

    main.loadModel(roberta.toString());
    main.textAProperty().set("the dog sat on the rug .");
    main.analyse(); // typed while RoBERTa reads its weights: the model loaded so far is still the BERT
    worker.runAll();

    AttentionTrace shown = main.session().trace();
    assertThat(main.session().model().name()).isEqualTo("roberta");
    assertThat(shown).as("the typed input, run on the model that loaded").isNotNull();
    assertThat(shown.tokens()).startsWith("<s>");
    assertThat(shown.tokens()).containsSequence(main.session().model().encode("the dog sat on the rug .", null)
        .tokens());
  }

  @Test
  void ofTwoOverlappingLoadsTheLaterOnesModelStays() {
    Path bert = TinyBert.create(2, 3, 7).writeTo(dir.resolve("bert2")).config().getParent();
    Path roberta = dir.resolve("roberta2");
    FamilyModelFolders.write("roberta", roberta, 5);
    QueuedWorker worker = new QueuedWorker();
    MainViewModel main = new MainViewModel(worker, new ModelRepository(dir.resolve("cache2")));
    main.textAProperty().set("the cat sat on the mat .");
    main.loadModel(roberta.toString());
    main.loadModel(bert.toString());
    worker.runAll();
    assertThat(main.session().model().name()).isEqualTo("bert2");
    assertThat(main.session().trace().tokens()).startsWith("[CLS]");
  }
}
