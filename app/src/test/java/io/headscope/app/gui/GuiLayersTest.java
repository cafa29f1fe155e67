package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.app.gui.dialog.FileAsker;
import io.headscope.app.gui.exec.FxWorker;
import io.headscope.app.gui.layers.LayersView;
import io.headscope.app.gui.main.MainView;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
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

/** The Layers tab with real clicks: run on the typed input, hover and click a cell, see its predictions. */
@ExtendWith(ApplicationExtension.class)
@Tag("ui")
class GuiLayersTest {
  @TempDir static Path dir;
  static Path tiny;
  MainView view;
  Path exportTarget;

  @BeforeAll
  static void writeModel() {
    tiny = TinyBert.create(3, 4, 11).writeTo(dir.resolve("tiny")).config().getParent();
  }

  @Start
  void start(Stage stage) {
    view = HeadScopeApp.create(stage, new FxWorker(), new ModelRepository(dir.resolve("cache")));
    view.setFileAsker(FixedAnswers.saving(() -> exportTarget));
    stage.show();
    view.viewModel().textAProperty().set("the cat sat on the [MASK] .");
    view.viewModel().loadModel(tiny.toString());
  }

  private static void waitFor(BooleanSupplier condition) throws Exception {
    WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, condition::getAsBoolean);
    WaitForAsyncUtils.waitForFxEvents();
  }

  @Test
  void clickingACellShowsThatStitchedModelsPredictions(FxRobot robot) throws Exception {
    waitFor(() -> view.viewModel().traceProperty().get() != null && !view.viewModel().busyProperty().get());
    robot.clickOn("#tab-layers");
    robot.clickOn("#layers-run");
    waitFor(() -> robot.lookup("#layers-canvas").query().getBoundsInLocal().getWidth() > 100);
    assertThat(robot.lookup("#layers-status").queryAs(Label.class).getText()).contains("current input");

    LayersView layers = robot.lookup("#layers-view").queryAs(LayersView.class);
    robot.moveTo(layers.cellOnScreen(0, 3));
    waitFor(() -> robot.lookup("#layers-hover").queryAs(Label.class).getText().startsWith("h0 → layer 3"));
    robot.clickOn(layers.cellOnScreen(0, 3));
    waitFor(() -> robot.lookup("#layers-stitched-0").tryQuery().isPresent());
    assertThat(robot.lookup("#layers-stitched-0").queryAs(Label.class).getText()).startsWith("h0 → layer 3: ")
        .contains(" · ");
    assertThat(robot.lookup("#layers-cell-status").queryAs(Label.class).getText()).contains("h0 fed into layer 3");

    exportTarget = dir.resolve("compat.csv");
    robot.clickOn("#layers-export");
    waitFor(() -> Files.exists(exportTarget));
    assertThat(Files.readAllLines(exportTarget)).hasSize(1 + 4 * 3);
  }
}
