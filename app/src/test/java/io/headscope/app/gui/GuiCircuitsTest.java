package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.app.gui.circuits.CircuitsView;
import io.headscope.app.gui.exec.FxWorker;
import io.headscope.app.gui.main.MainView;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javafx.scene.control.Label;
import javafx.scene.control.TextField;
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

/** The Circuits tab with real clicks: run, point at the largest edge, click it, read its exact patch beside its estimate. */
@ExtendWith(ApplicationExtension.class)
@Tag("ui")
class GuiCircuitsTest {
  @TempDir static Path dir;
  static Path tiny;
  MainView view;

  @BeforeAll
  static void writeModel() {
    tiny = TinyBert.create(2, 3, 7).writeTo(dir.resolve("tiny")).config().getParent();
  }

  @Start
  void start(Stage stage) {
    view = HeadScopeApp.create(stage, new FxWorker(), new ModelRepository(dir.resolve("cache")));
    stage.show();
    view.viewModel().textAProperty().set(CircuitsViewModelTest.CLEAN);
    view.viewModel().loadModel(tiny.toString());
  }

  private static void waitFor(BooleanSupplier condition) throws Exception {
    WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, condition::getAsBoolean);
    WaitForAsyncUtils.waitForFxEvents();
  }

  @Test
  void clickingTheLargestEdgeShowsItsExactPatchBesideItsEstimate(FxRobot robot) throws Exception {
    waitFor(() -> view.viewModel().traceProperty().get() != null && !view.viewModel().busyProperty().get());
    robot.clickOn("#tab-circuits");
    robot.interact(() -> {
      robot.lookup("#circuits-corrupted").queryAs(TextField.class).setText(CircuitsViewModelTest.CORRUPTED);
      robot.lookup("#circuits-target").queryAs(TextField.class).setText("she");
      robot.lookup("#circuits-contrast").queryAs(TextField.class).setText("he");
    });
    robot.clickOn("#circuits-run");
    waitFor(() -> robot.lookup("#circuits-status").queryAs(Label.class).getText().startsWith("EAP of"));
    CircuitsView circuits = robot.lookup("#circuits-view").queryAs(CircuitsView.class);
    int best = circuits.viewModel().shownProperty().get().get(0);
    String label = circuits.viewModel().resultProperty().get().scores().edges().get(best).label();
    robot.moveTo(circuits.edgeOnScreen(best));
    waitFor(() -> robot.lookup("#circuits-hover").queryAs(Label.class).getText().startsWith(label + ":"));
    robot.clickOn(circuits.edgeOnScreen(best));
    try {
      waitFor(() -> robot.lookup("#circuits-check").queryAs(Label.class).getText().startsWith(label + ": exact patch"));
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("check: " + robot.lookup("#circuits-check").queryAs(Label.class).getText() + " | status: "
          + robot.lookup("#circuits-status").queryAs(Label.class).getText(), e);
    }
    assertThat(robot.lookup("#circuits-check").queryAs(Label.class).getText()).contains("EAP estimate");
  }
}
