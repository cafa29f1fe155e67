package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.analysis.ablation.AblationCsv;
import io.headscope.analysis.export.HeadCsv;
import io.headscope.app.gui.dialog.FileAsker;
import io.headscope.app.gui.exec.FxWorker;
import io.headscope.app.gui.main.MainView;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.render.HeadMatrix;
import io.headscope.app.render.PngFiles;
import io.headscope.model.core.Head;
import io.headscope.model.repository.ModelRepository;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javafx.embed.swing.SwingFXUtils;
import javafx.geometry.Bounds;
import javafx.scene.Node;
import javafx.stage.Stage;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The one UI test on the real bert-base-uncased: the app's own start path, 144 thumbnails, a head
 * switched off moves the prediction. With {@code -Dheadscope.screenshots=DIR} it also saves a
 * screenshot of each state (how the note's pictures were made).
 */
@ExtendWith(ApplicationExtension.class)
@Tag("full-model")
@Tag("ui")
class GuiFullModelTest {
  @TempDir static Path dir;
  MainView view;
  Stage stage;
  Path exportTarget;
  Path corpusFile;

  @Start
  void start(Stage stage) {
    this.stage = stage;
    view = HeadScopeApp.create(stage, new FxWorker(), ModelRepository.standard());
    view.setFileAsker(FixedAnswers.saving(() -> exportTarget).openingFile(() -> corpusFile));
    view.viewModel().textAProperty().set(HeadScopeApp.FIRST_SENTENCE);
    stage.show();
    view.viewModel().loadModel(ModelRepository.DEFAULT_MODEL);
  }

  private MainViewModel vm() {
    return view.viewModel();
  }

  private static void waitFor(BooleanSupplier condition) throws Exception {
    WaitForAsyncUtils.waitFor(120, TimeUnit.SECONDS, condition::getAsBoolean);
    WaitForAsyncUtils.waitForFxEvents();
  }

  private void idle() throws Exception {
    waitFor(() -> !vm().busyProperty().get() && vm().traceProperty().get() != null);
    Thread.sleep(300);
    WaitForAsyncUtils.waitForFxEvents();
  }

  private void shot(String name) throws Exception {
    String dir = System.getProperty("headscope.screenshots");
    if (dir == null) {
      return;
    }
    WaitForAsyncUtils.waitForFxEvents();
    var img = WaitForAsyncUtils.asyncFx(() -> stage.getScene().getRoot().snapshot(null, null)).get();
    PngFiles.write(SwingFXUtils.fromFXImage(img, null), Path.of(dir, name + ".png"));
  }

  private static void moveInto(FxRobot robot, Node node, double fx, double fy) {
    Bounds b = node.localToScreen(node.getBoundsInLocal());
    robot.moveTo(new javafx.geometry.Point2D(b.getMinX() + b.getWidth() * fx, b.getMinY() + b.getHeight() * fy));
  }

  @Test
  void theEmbeddedModelOpensWith144HeadsAndSwitchingOffALayerMovesThePrediction(FxRobot robot) throws Exception {
    shot("01-loading");
    idle();
    assertThat(robot.lookup(n -> n.getId() != null && n.getId().startsWith("thumb-")).queryAll()).hasSize(144);
    assertThat(vm().predictionsProperty().get(0).before().get(0).token()).isEqualTo("floor");
    shot("02-loaded");

    exportTarget = dir.resolve("classify.csv");
    robot.clickOn("Export").clickOn("Head classification CSV (this sentence)…");
    waitFor(() -> Files.exists(exportTarget));
    List<String> lines = Files.readAllLines(exportTarget);
    assertThat(lines.get(0)).isEqualTo(String.join(",", HeadCsv.HEADER));
    try (var in = Files.newBufferedReader(exportTarget)) {
      var rows = HeadCsv.read(in, "classify.csv");
      assertThat(rows).hasSize(144);
      assertThat(rows.get(143).head()).isEqualTo(new Head(11, 11));
      assertThat(rows.get(0).category()).isEqualTo(vm().score(new Head(0, 0)).category());
    }

    robot.clickOn("#thumb-8-10");
    idle();
    Node heat = robot.lookup("#head-heatmap").query();
    moveInto(robot, heat, 0.93, 0.5);
    shot("03-head-8-10-hover");

    // a click only selects (issue 31): switching is the deliberate X on the selected head
    robot.clickOn("#thumb-8-10").type(javafx.scene.input.KeyCode.X);
    robot.clickOn("#layer-11");  // visible: the grid fits all 12 layers at 1280x800
    waitFor(() -> vm().maskProperty().get().off().size() == 13);
    idle();
    var row = vm().predictionsProperty().get(0);
    assertThat(row.changed()).isTrue();
    assertThat(row.after().get(0).probability()).isNotEqualTo(row.before().get(0).probability());
    shot("04-heads-off");

    robot.clickOn("#all-on");
    robot.clickOn("#text-b").write("It had been a long day.");
    waitFor(() -> vm().traceProperty().get() != null && vm().traceProperty().get().encoding().isPair());
    idle();
    robot.clickOn("#thumb-3-1");
    robot.clickOn("#pair-filter").clickOn("a → b");
    idle();
    shot("05-pair-a-to-b");

    robot.clickOn("#pair-filter").clickOn("all tokens");
    robot.clickOn("#display-choice").clickOn(HeadMatrix.Display.NORMS.toString());
    robot.clickOn("#thumb-8-10");
    idle();
    shot("06-norms");

    robot.clickOn("#tab-lines");
    WaitForAsyncUtils.waitForFxEvents();
    moveInto(robot, robot.lookup("#head-lines").query(), 0.1, 0.15);
    shot("07-lines-hover");
    assertThat(view.headViewModel().hoveredTokenProperty().get()).isGreaterThanOrEqualTo(0);

    robot.clickOn("#tab-heatmap");
    robot.clickOn("#tab-sweep").clickOn("#sweep-run");
    shot("08a-sweep-running");
    // The canvas fills layer by layer while the sweep runs; export opens only when it is done.
    WaitForAsyncUtils.waitFor(300, TimeUnit.SECONDS, () -> !robot.lookup("#sweep-export").query().isDisabled()
        && !robot.lookup("#sweep-run").query().isDisabled());
    idle();
    shot("08b-sweep-done");
    exportTarget = dir.resolve("ablation.csv");
    robot.clickOn("#sweep-export");
    waitFor(() -> Files.exists(exportTarget));
    List<String> ablation = Files.readAllLines(exportTarget);
    assertThat(ablation.get(0)).isEqualTo(String.join(",", AblationCsv.ABLATION_HEADER));
    assertThat(ablation).hasSize(1 + 144 + 12);
    robot.clickOn("#tab-corpus");
    corpusFile = Files.writeString(dir.resolve("corpus.txt"), "The cat sat on the mat.\n"
        + "She went to the store, and he stayed home.\tIt was raining.\n"
        + "Birds sing in the morning.\nThe committee approved the plan after a long debate.\n");
    robot.clickOn("#corpus-open").clickOn("#corpus-run");
    waitFor(() -> robot.lookup("#corpus-grid").query().getBoundsInLocal().getHeight() > 50);
    idle();
    shot("10-corpus");
    robot.clickOn("#tab-grid");
    StringBuilder longText = new StringBuilder();
    while (longText.length() < 2400) {
      longText.append("The quick brown fox jumps over the lazy dog while the cat watches from the mat. ");
    }
    robot.interact(() -> {
      vm().textBProperty().set("");
      vm().textAProperty().set(longText.toString());
    });
    waitFor(() -> vm().traceProperty().get() != null && vm().traceProperty().get().tokens().size() > 400);
    idle();
    shot("09-long-input");
    assertThat(view.headViewModel().matrixProperty().get().rows()).isGreaterThan(400);
  }
}
