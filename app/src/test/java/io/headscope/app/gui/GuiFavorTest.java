package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.app.gui.dialog.FileAsker;
import io.headscope.app.gui.exec.FxWorker;
import io.headscope.app.gui.favor.FavorView;
import io.headscope.app.gui.main.MainView;
import io.headscope.model.core.Head;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javafx.scene.chart.LineChart;
import javafx.scene.control.Label;
import javafx.scene.image.Image;
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

/** The Linear attention tab with real clicks: compute, click a cell, see that head's maps and curve. */
@ExtendWith(ApplicationExtension.class)
@Tag("ui")
class GuiFavorTest {
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
    WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, condition::getAsBoolean);
    WaitForAsyncUtils.waitForFxEvents();
  }

  @Test
  void computingThenClickingACellShowsThatHeadsMaps(FxRobot robot) throws Exception {
    waitFor(() -> view.viewModel().traceProperty().get() != null && !view.viewModel().busyProperty().get());
    robot.clickOn("#tab-favor");
    assertThat(robot.lookup("#favor-exact").query().getProperties().get("headscope.image")).isNull();
    robot.clickOn("#favor-run");
    waitFor(() -> robot.lookup("#favor-status").queryAs(Label.class).getText().contains("Click a cell"));

    FavorView favor = robot.lookup("#favor-view").queryAs(FavorView.class);
    Head target = new Head(2, 3);
    robot.moveTo(favor.cellOnScreen(2, 3));
    waitFor(() -> robot.lookup("#favor-hover").queryAs(Label.class).getText().startsWith("head " + target));
    robot.clickOn(favor.cellOnScreen(2, 3));
    waitFor(() -> robot.lookup("#favor-head-label").queryAs(Label.class).getText().startsWith("Head " + target));
    assertThat(view.viewModel().selectedProperty().get()).isEqualTo(target);
    int tokens = view.viewModel().traceProperty().get().tokens().size();
    for (String id : new String[] {"#favor-exact", "#favor-approx", "#favor-diff"}) {
      var image = (Image) robot.lookup(id).query().getProperties().get("headscope.image");
      assertThat(image).as(id).isNotNull();
      assertThat((int) image.getWidth()).as(id).isEqualTo(tokens);
    }
    // the curve: ORF and iid, one point per m
    LineChart<?, ?> curve = robot.lookup("#favor-curve").queryAs(LineChart.class);
    assertThat(curve.getData()).hasSize(2);
    assertThat(curve.getData().get(0).getData()).hasSize(5);

    exportTarget = dir.resolve("favor.csv");
    robot.clickOn("#favor-export");
    waitFor(() -> Files.exists(exportTarget));
    assertThat(Files.readAllLines(exportTarget)).hasSize(1 + 2 * 5 * (3 * 4 + 3 + 1));

    // the toggle: the selected head runs on FAVOR+ in the main window, which says so, and back
    robot.clickOn("#favor-predictions");
    waitFor(() -> view.viewModel().ablatedProperty().get() != view.viewModel().traceProperty().get()
        && !view.viewModel().busyProperty().get());
    assertThat(view.viewModel().session().favor().heads()).containsExactly(target);
    assertThat(robot.lookup("#favor-predictions-label").queryAs(Label.class).getText())
        .startsWith("On: 1 head on FAVOR+ (m = 64, ORF, draw 1) (" + target + ")");
    assertThat(view.viewModel().statusProperty().get()).contains("1 head on FAVOR+");
    robot.clickOn("#favor-predictions");
    waitFor(() -> view.viewModel().ablatedProperty().get() == view.viewModel().traceProperty().get()
        && !view.viewModel().busyProperty().get());
    assertThat(view.viewModel().session().favor().isEmpty()).isTrue();
  }
}
