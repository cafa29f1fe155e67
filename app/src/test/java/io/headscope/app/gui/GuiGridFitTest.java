package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.app.gui.exec.FxWorker;
import io.headscope.app.gui.main.MainView;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import javafx.geometry.Bounds;
import javafx.scene.Node;
import javafx.scene.control.Labeled;
import javafx.scene.control.ScrollPane;
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

/**
 * Issue 40: at 1280x800 a 12 x 12 model's All heads grid fits its pane (row L12 and column h12 were behind two
 * scroll bars once the legend's "uncertain" chip wrapped it), the Sentence field is not narrower than the optional
 * Pair field, and no label of the input row is cut to "…". A 12-layer, 12-head tiny BERT: the grid's geometry is
 * bert-base's.
 */
@ExtendWith(ApplicationExtension.class)
@Tag("ui")
class GuiGridFitTest {
  @TempDir static Path dir;
  static Path model;
  MainView view;
  Stage stage;

  @BeforeAll
  static void writeModel() {
    model = TinyBert.create(12, 12, 5).writeTo(dir.resolve("tiny12")).config().getParent();
  }

  @Start
  void start(Stage stage) {
    this.stage = stage;
    view = HeadScopeApp.create(stage, new FxWorker(), new ModelRepository(dir.resolve("cache")));
    stage.setX(0);
    stage.setY(0);
    stage.show();
    view.viewModel().textAProperty().set("the cat sat on the [MASK] because it was tired .");
    view.viewModel().textBProperty().set("the dog slept all day .");
    view.viewModel().loadModel(model.toString());
  }

  @Test
  void theTwelveByTwelveGridFitsAt1280x800WithTheSentenceFieldTheWider(FxRobot robot) throws Exception {
    WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> view.viewModel().layersProperty().get() == 12
        && view.viewModel().traceProperty().get() != null && !view.viewModel().busyProperty().get()
        && view.viewModel().scoresProperty().size() == 144);
    WaitForAsyncUtils.sleep(500, TimeUnit.MILLISECONDS); // the grid's one fitting pass after layout
    WaitForAsyncUtils.waitForFxEvents();
    assertThat(stage.getScene().getWidth()).isEqualTo(1280);
    assertThat(stage.getScene().getHeight()).isEqualTo(800);

    ScrollPane scroll = robot.lookup("#model-grid").lookup(".scroll-pane").queryAs(ScrollPane.class);
    Bounds viewport = scroll.getViewportBounds();
    Bounds content = scroll.getContent().getLayoutBounds();
    assertThat(content.getWidth()).as("grid width within the view").isLessThanOrEqualTo(viewport.getWidth() + 0.5);
    assertThat(content.getHeight()).as("grid height within the view").isLessThanOrEqualTo(viewport.getHeight() + 0.5);
    // the last thumbnail is on screen, inside the pane
    Node last = robot.lookup("#thumb-12-12").query();
    Bounds lastOnScreen = last.localToScreen(last.getBoundsInLocal());
    Bounds paneOnScreen = scroll.localToScreen(scroll.getBoundsInLocal());
    assertThat(paneOnScreen.contains(lastOnScreen)).as("%s inside %s", lastOnScreen, paneOnScreen).isTrue();

    TextField a = robot.lookup("#text-a").queryAs(TextField.class);
    TextField b = robot.lookup("#text-b").queryAs(TextField.class);
    assertThat(a.getWidth()).isGreaterThanOrEqualTo(b.getWidth());
    // no label or button of the input row is cut short ("Sente…", "All heads…")
    for (Node n : a.getParent().getChildrenUnmodifiable()) {
      if (n instanceof Labeled l) {
        assertThat(l.getWidth()).as(l.getText()).isGreaterThanOrEqualTo(l.prefWidth(-1) - 0.5);
      }
    }
  }

  /**
   * The walk-through at 1920x1080 (issue 40): after a 12 x 12 model, a 2 x 3 one kept the small thumbnails
   * (the fit was skipped as a scroll bar's nudge, the view's size being the same). Another model's shape is
   * fitted anew: its thumbnails fill the pane as far as their width allows.
   */
  @Test
  void aSmallModelAfterALargeOneFillsThePane(FxRobot robot) throws Exception {
    WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> view.viewModel().layersProperty().get() == 12
        && view.viewModel().traceProperty().get() != null && !view.viewModel().busyProperty().get());
    WaitForAsyncUtils.sleep(500, TimeUnit.MILLISECONDS);
    Path small = TinyBert.create(2, 3, 6).writeTo(dir.resolve("tiny2x3")).config().getParent();
    robot.interact(() -> view.viewModel().loadModel(small.toString()));
    WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> view.viewModel().layersProperty().get() == 2
        && view.viewModel().traceProperty().get() != null && !view.viewModel().busyProperty().get());
    WaitForAsyncUtils.sleep(500, TimeUnit.MILLISECONDS);
    WaitForAsyncUtils.waitForFxEvents();
    ScrollPane scroll = robot.lookup("#model-grid").lookup(".scroll-pane").queryAs(ScrollPane.class);
    double paneWidth = scroll.getViewportBounds().getWidth();
    Node thumb = robot.lookup("#thumb-1-1").query();
    // three thumbnails and their gaps (48 + 3 x 14 px) across the pane, or the largest thumbnail (180 px)
    double expected = Math.min(180, (paneWidth - 48 - 3 * 14) / 3);
    assertThat(thumb.getBoundsInLocal().getWidth()).as("a thumbnail of the 2 x 3 model in a %.0f px pane", paneWidth)
        .isGreaterThan(0.8 * expected);
    Node last = robot.lookup("#thumb-2-3").query();
    Bounds paneOnScreen = scroll.localToScreen(scroll.getBoundsInLocal());
    assertThat(paneOnScreen.contains(last.localToScreen(last.getBoundsInLocal()))).isTrue();
  }
}
