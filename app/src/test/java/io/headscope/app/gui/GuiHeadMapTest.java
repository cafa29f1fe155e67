package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.app.gui.dialog.FileAsker;
import io.headscope.app.gui.exec.FxWorker;
import io.headscope.app.gui.headmap.HeadMapView;
import io.headscope.app.gui.main.MainView;
import io.headscope.model.core.Head;
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

/** The head map tab with real clicks: draw the map of the typed input, click a point, see that head. */
@ExtendWith(ApplicationExtension.class)
@Tag("ui")
class GuiHeadMapTest {
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
    view.viewModel().textAProperty().set("the cat sat on the mat .");
    view.viewModel().loadModel(tiny.toString());
  }

  private static void waitFor(BooleanSupplier condition) throws Exception {
    WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, condition::getAsBoolean);
    WaitForAsyncUtils.waitForFxEvents();
  }

  @Test
  void clickingAPointOfTheMapSelectsThatHead(FxRobot robot) throws Exception {
    waitFor(() -> view.viewModel().traceProperty().get() != null && !view.viewModel().busyProperty().get());
    robot.clickOn("#tab-head-map");
    robot.clickOn("#head-map-draw");
    waitFor(() -> robot.lookup("#head-map").query().getBoundsInLocal().getWidth() > 100);
    assertThat(robot.lookup("#head-map-status").queryAs(Label.class).getText()).contains("12 heads");

    HeadMapView map = robot.lookup("#head-map-view").queryAs(HeadMapView.class);
    // a head other than the one selected now (the first head is selected when a model loads)
    Head before = view.viewModel().selectedProperty().get();
    Head target = new Head(2, 3).equals(before) ? new Head(1, 2) : new Head(2, 3);
    robot.moveTo(map.pointOnScreen(target));
    waitFor(() -> robot.lookup("#head-map-hover").queryAs(Label.class).getText().startsWith("head " + target));
    robot.clickOn(map.pointOnScreen(target));
    waitFor(() -> target.equals(view.viewModel().selectedProperty().get()));
    assertThat(robot.lookup("#head-title").queryAs(Label.class).getText()).contains(target.toString());

    exportTarget = dir.resolve("head-map.svg");
    robot.clickOn("#head-map-figure");
    waitFor(() -> Files.exists(exportTarget));
    assertThat(Files.readString(exportTarget)).contains("<circle").contains("head map");
  }
}
