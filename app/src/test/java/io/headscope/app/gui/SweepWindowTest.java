package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.analysis.ablation.AblationResult;
import io.headscope.analysis.ablation.AblationSweep;
import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.app.gui.exec.FxWorker;
import io.headscope.app.gui.main.MainView;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.gui.sweep.SweepView;
import io.headscope.app.gui.sweep.SweepViewModel;
import io.headscope.model.core.HeadMask;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.stage.Stage;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Issue 31, item 1, in the real window on a tiny model: what is chosen under Predictions is what one
 * press of the Sweep screen's Run measures, and a later choice marks the shown map stale.
 */
@ExtendWith(ApplicationExtension.class)
@Tag("ui")
class SweepWindowTest {
  @TempDir static Path dir;
  static Path tiny;
  MainView view;

  @BeforeAll
  static void writeModel() {
    tiny = TinyBert.create(2, 3, 21).writeTo(dir.resolve("tiny")).config().getParent();
  }

  @Start
  void start(Stage stage) {
    view = HeadScopeApp.create(stage, new FxWorker(), new ModelRepository(dir.resolve("cache")));
    stage.show();
    view.viewModel().textAProperty().set("the cat sat on the [MASK] .");
    view.viewModel().loadModel(tiny.toString());
  }

  private MainViewModel vm() {
    return view.viewModel();
  }

  // Would catch the sweep measuring the intact top token while "Sweep: logit difference" is chosen
  // (the bug), a title that does not say what was computed, and a stale map shown as the new choice.
  @Test
  void theSweepRunOnceMeasuresWhatPredictionsChoseAndALaterChoiceMarksItStale(FxRobot robot) throws Exception {
    waitFor(() -> vm().traceProperty().get() != null && !vm().busyProperty().get());
    robot.clickOn("#target-word").write("cat");
    robot.clickOn("#contrast-word").write("dog");
    @SuppressWarnings("unchecked")
    ChoiceBox<TargetMetric.Kind> kind = robot.lookup("#target-metric").queryAs(ChoiceBox.class);
    robot.interact(() -> kind.setValue(TargetMetric.Kind.LOGIT_DIFF));
    waitFor(() -> vm().session().target() != null && vm().session().target().kind() == TargetMetric.Kind.LOGIT_DIFF
        && vm().session().target().hasContrast());

    robot.clickOn("#tab-sweep");
    SweepViewModel sweep = robot.lookup("#sweep-view").queryAs(SweepView.class).viewModel();
    robot.clickOn("#sweep-run");
    waitFor(() -> sweep.resultProperty().get() != null && !sweep.runningProperty().get());

    var m = vm().modelProperty().get();
    TargetMetric logitDiff = new TargetMetric(TargetMetric.Kind.LOGIT_DIFF, m.tokenizer().singleTokenId("cat"),
        m.tokenizer().singleTokenId("dog"));
    AblationResult expected = new AblationSweep(m).run(vm().traceProperty().get().encoding(),
        new AblationSweep.Options(HeadMask.Mode.ZERO, true, 0).following(logitDiff));
    // the screen's sweep and this one make the same float32 operations: equal bits where the engine's products are
    // batch-invariant (MKL in its strict mode); elsewhere (an AMD CPU, the AVX2 leg) each run's two metrics, intact
    // and with the head off, are within Float32Bounds.forward of their scale (the larger |metric|) from the exact
    // values, as ActivationPatchingTest derives it: a delta within twice that, the two runs' deltas within 4 times
    double rel = 4 * io.headscope.model.testing.Float32Bounds.forward(m.config(),
        vm().traceProperty().get().encoding().length());
    for (int l = 0; l < expected.layers(); l++) {
      for (int h = 0; h < expected.heads(); h++) {
        double want = expected.deltaLogprob(l, h);
        if (m.batchInvariant()) {
          assertThat(sweep.value(l, h)).as("head %d-%d", l, h).isEqualTo(want);
        } else {
          double base = expected.baselineLogprob();
          double scale = Math.max(Math.abs(base), Math.abs(base + want));
          assertThat(sweep.value(l, h)).as("head %d-%d", l, h).isCloseTo(want, within(rel * scale));
        }
      }
    }
    assertThat(robot.lookup("#sweep-title").queryAs(Label.class).getText())
        .contains("logit cat − dog").contains("target cat").contains("contrast dog");
    assertThat(robot.lookup("#sweep-stale").queryAs(Label.class).isVisible()).isFalse();
    Button run = robot.lookup("#sweep-run").queryAs(Button.class);
    assertThat(run.getText()).isEqualTo("Run");

    // another "Sweep:" choice: the map is struck through and Run asks to be pressed again
    robot.interact(() -> kind.setValue(TargetMetric.Kind.PROB));
    waitFor(() -> sweep.staleProperty().get());
    Label stale = robot.lookup("#sweep-stale").queryAs(Label.class);
    assertThat(stale.isVisible()).isTrue();
    assertThat(stale.getText()).contains("logit cat − dog").contains("P(cat) − P(dog)");
    assertThat(run.getText()).isEqualTo("Run again");
    robot.clickOn("#sweep-run");
    waitFor(() -> !sweep.staleProperty().get() && !sweep.runningProperty().get());
    assertThat(stale.isVisible()).isFalse();
    assertThat(run.getText()).isEqualTo("Run");
    assertThat(robot.lookup("#sweep-title").queryAs(Label.class).getText()).contains("P(cat) − P(dog)");
  }

  private static void waitFor(BooleanSupplier c) throws Exception {
    WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, c::getAsBoolean);
    WaitForAsyncUtils.waitForFxEvents();
  }
}
