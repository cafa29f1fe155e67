package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.app.gui.exec.DirectWorker;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.gui.predict.PredictionsViewModel;
import io.headscope.model.Head;
import io.headscope.model.store.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The predictions panel follows the session's traces, without a window. */
class PredictionsViewModelTest {
  @TempDir Path dir;

  @Test
  void rowsFollowTheTracesAndClearWithThem() {
    Path tiny = TinyBert.create(2, 3, 5).writeTo(dir.resolve("tiny")).config().getParent();
    MainViewModel main = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    PredictionsViewModel vm = main.predictions();
    assertThat(vm.predictionsProperty()).isEmpty();
    assertThat(vm.emptyHintProperty().get()).contains("[MASK]");

    main.textAProperty().set("the cat sat on the [MASK] .");
    main.loadModel(tiny.toString());
    assertThat(vm.predictionsProperty()).hasSize(1);
    assertThat(vm.predictionsProperty().get(0).changed()).isFalse();

    main.toggleHead(new Head(1, 2));
    assertThat(vm.predictionsProperty().get(0).changed()).isTrue();
    assertThat(vm.predictionsProperty().get(0).after().get(0).token())
        .isEqualTo(main.ablatedProperty().get().predictions().get(0).top().get(0).token());

    main.textAProperty().set(" ");
    main.analyse();
    assertThat(vm.predictionsProperty()).isEmpty();
    assertThat(vm.classesProperty()).isEmpty();
  }
}
