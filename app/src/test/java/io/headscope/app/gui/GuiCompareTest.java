package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.app.gui.compare.CompareView;
import io.headscope.app.gui.dialog.FileAsker;
import io.headscope.app.gui.exec.FxWorker;
import io.headscope.app.gui.main.MainView;
import io.headscope.model.core.Head;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javafx.geometry.Point2D;
import javafx.scene.control.Label;
import javafx.scene.image.WritableImage;
import javafx.scene.paint.Color;
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
 * The Compare tab with real clicks: the loaded tiny model against the same checkpoint opened as B, every
 * cell of the grid drawn in the colour of cosine 1; a clicked head's two maps; the CSV export.
 */
@ExtendWith(ApplicationExtension.class)
@Tag("ui")
class GuiCompareTest {
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
    view.setFileAsker(FixedAnswers.saving(() -> exportTarget).openingFolder(() -> tiny));
    stage.show();
    view.viewModel().textAProperty().set("the cat sat on the mat .");
    view.viewModel().loadModel(tiny.toString());
  }

  private static void waitFor(BooleanSupplier condition) throws Exception {
    WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, condition::getAsBoolean);
    WaitForAsyncUtils.waitForFxEvents();
  }

  @Test
  void theLoadedModelAgainstItselfIsCosineOneInEveryCell(FxRobot robot) throws Exception {
    waitFor(() -> view.viewModel().traceProperty().get() != null && !view.viewModel().busyProperty().get());
    // every screen is listed: the entry is inside the navigation column, not cut off at its bottom
    javafx.scene.Node header = robot.lookup("#tab-compare").query();
    javafx.scene.Node nav = robot.lookup("#screen-nav-scroll").query();
    assertThat(header.localToScreen(header.getBoundsInLocal()).getMaxY())
        .isLessThanOrEqualTo(nav.localToScreen(nav.getBoundsInLocal()).getMaxY());
    robot.clickOn("#tab-compare");
    robot.clickOn("#compare-open-model");
    robot.clickOn("#compare-run");
    try {
      waitFor(() -> robot.lookup("#compare-canvas").query().getBoundsInLocal().getWidth() > 100);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("no grid; status: " + robot.lookup("#compare-status").queryAs(Label.class).getText()
          + "; error: " + view.viewModel().session().errorProperty().get(), e);
    }
    assertThat(robot.lookup("#compare-status").queryAs(Label.class).getText()).contains("current input")
        .contains("0 heads changed category");

    CompareView compare = robot.lookup("#compare-view").queryAs(CompareView.class);
    WritableImage shot = WaitForAsyncUtils.asyncFx(() -> compare.canvas().snapshot(null, null)).get();
    Color one = CompareView.colour(1.0);
    for (int l = 0; l < 3; l++) {
      for (int h = 0; h < 4; h++) {
        Point2D p = compare.cellInCanvas(new Head(l, h));
        Color c = shot.getPixelReader().getColor((int) p.getX(), (int) p.getY());
        assertThat(c.getRed()).as("L%d H%d", l + 1, h + 1).isCloseTo(one.getRed(), org.assertj.core.api.Assertions.within(0.02));
        assertThat(c.getGreen()).isCloseTo(one.getGreen(), org.assertj.core.api.Assertions.within(0.02));
        assertThat(c.getBlue()).isCloseTo(one.getBlue(), org.assertj.core.api.Assertions.within(0.02));
      }
    }
    robot.moveTo(compare.cellOnScreen(new Head(2, 3)));
    waitFor(() -> robot.lookup("#compare-hover").queryAs(Label.class).getText().startsWith("L3 H4: cosine 1.0000"));

    robot.clickOn(compare.cellOnScreen(new Head(2, 3)));
    waitFor(() -> compare.mapWidths()[1] > 100);
    assertThat(robot.lookup("#compare-map-status").queryAs(Label.class).getText())
        .contains("L3 H4 on the current input").contains("cosine 1.0000").contains("JS 0.00000");
    assertThat(compare.mapWidths()[0]).isEqualTo(compare.mapWidths()[1]);

    exportTarget = dir.resolve("compare.csv");
    robot.clickOn("#compare-export");
    waitFor(() -> Files.exists(exportTarget));
    List<String> lines = Files.readAllLines(exportTarget);
    assertThat(lines.get(0)).isEqualTo("layer,head,cosine,js_divergence,category_a,category_b,inputs");
    assertThat(lines).hasSize(1 + 3 * (4 + 1));
    assertThat(lines.get(1)).startsWith("1,1,1.000000,0.000000000,");
  }
}
