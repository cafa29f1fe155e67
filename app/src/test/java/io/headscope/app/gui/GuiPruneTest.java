package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.app.gui.dialog.FileAsker;
import io.headscope.app.gui.exec.FxWorker;
import io.headscope.app.gui.main.MainView;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javafx.scene.chart.LineChart;
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

/** The pruning panel under the sweep, with real clicks: open a labelled file, run, both curves drawn, export. */
@ExtendWith(ApplicationExtension.class)
@Tag("ui")
class GuiPruneTest {
  @TempDir static Path dir;
  static Path classifier;
  static Path labelled;
  MainView view;
  Path exportTarget;

  @BeforeAll
  static void write() throws Exception {
    classifier = TinyBert.create(2, 3, 23).withClassifier("neg", "pos").writeTo(dir.resolve("sentiment")).config()
        .getParent();
    labelled = Files.writeString(dir.resolve("labelled.tsv"), "the cat sat on the mat .\tpos\na dog ran\tneg\n"
        + "she was a queen\the was a king\tpos\nbig red car\tneg\n");
  }

  @Start
  void start(Stage stage) {
    view = HeadScopeApp.create(stage, new FxWorker(), new ModelRepository(dir.resolve("cache")));
    view.setFileAsker(FixedAnswers.saving(() -> exportTarget).openingFile(() -> labelled));
    stage.show();
    view.viewModel().textAProperty().set("the cat sat on the mat .");
    view.viewModel().loadModel(classifier.toString());
  }

  private static void waitFor(BooleanSupplier condition) throws Exception {
    WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, condition::getAsBoolean);
    WaitForAsyncUtils.waitForFxEvents();
  }

  @Test
  void bothCurvesAreDrawnTogetherAndExportAsTheCommandWritesThem(FxRobot robot) throws Exception {
    waitFor(() -> view.viewModel().traceProperty().get() != null && !view.viewModel().busyProperty().get());
    robot.clickOn("#tab-prune");
    robot.clickOn("#prune-open");
    assertThat(robot.lookup("#prune-file").queryAs(Label.class).getText()).isEqualTo("labelled.tsv");
    robot.clickOn("#prune-run");
    LineChart<?, ?> chart = robot.lookup("#prune-chart").queryAs(LineChart.class);
    waitFor(() -> chart.getData().size() == 2);
    assertThat(chart.getData().get(0).getData()).hasSize(7);
    assertThat(chart.getData().get(1).getName()).startsWith("random order");
    assertThat(robot.lookup("#prune-status").queryAs(Label.class).getText()).contains("accuracy on labelled.tsv");

    exportTarget = dir.resolve("from-app.csv");
    robot.clickOn("#prune-export-importance");
    waitFor(() -> Files.exists(exportTarget));
    Path cli = dir.resolve("from-cli.csv");
    assertThat(io.headscope.app.cli.HeadScopeCli.run("prune", "--model", classifier.toString(), "--corpus",
        labelled.toString(), "--out", cli.toString())).isZero();
    assertThat(Files.readAllBytes(exportTarget)).isEqualTo(Files.readAllBytes(cli));
  }
}
