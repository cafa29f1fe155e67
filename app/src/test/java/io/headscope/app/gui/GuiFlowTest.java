package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.app.gui.exec.FxWorker;
import io.headscope.app.gui.flow.FlowView;
import io.headscope.app.gui.main.MainView;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javafx.scene.control.Label;
import javafx.scene.control.Spinner;
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

/** The Information flow tab with real clicks: compute, the last layer's rollout first, a cell read under the pointer. */
@ExtendWith(ApplicationExtension.class)
@Tag("ui")
class GuiFlowTest {
  @TempDir static Path dir;
  static Path tiny;
  MainView view;

  @BeforeAll
  static void writeModel() {
    tiny = TinyBert.create(3, 4, 11).writeTo(dir.resolve("tiny")).config().getParent();
  }

  @Start
  void start(Stage stage) {
    view = HeadScopeApp.create(stage, new FxWorker(), new ModelRepository(dir.resolve("cache")));
    stage.show();
    view.viewModel().textAProperty().set("the cat sat on the mat .");
    view.viewModel().loadModel(tiny.toString());
  }

  private static void waitFor(BooleanSupplier condition) throws Exception {
    WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, condition::getAsBoolean);
    WaitForAsyncUtils.waitForFxEvents();
  }

  @Test
  void computingShowsTheLastLayersRolloutAndReadsACell(FxRobot robot) throws Exception {
    waitFor(() -> view.viewModel().traceProperty().get() != null && !view.viewModel().busyProperty().get());
    robot.clickOn("#tab-flow");
    robot.clickOn("#flow-compute");
    waitFor(() -> robot.lookup("#flow-status").queryAs(Label.class).getText().startsWith("Rollout of 3 layers"));
    assertThat(robot.lookup("#flow-layer").queryAs(Spinner.class).getValue()).isEqualTo(3);

    FlowView flow = robot.lookup("#flow-view").queryAs(FlowView.class);
    robot.moveTo(flow.cellOnScreen(2, 1));
    waitFor(() -> robot.lookup("#flow-hover").queryAs(Label.class).getText()
        .startsWith("rollout after layer 3: output 2 \"cat\" ← input 1 \"the\""));
  }
}
