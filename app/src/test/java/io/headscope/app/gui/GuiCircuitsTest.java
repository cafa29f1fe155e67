package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.analysis.circuits.Ablation;
import io.headscope.app.gui.circuits.CircuitsView;
import io.headscope.app.gui.dialog.FileAsker;
import io.headscope.app.gui.exec.FxWorker;
import io.headscope.app.gui.main.MainView;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javafx.scene.chart.LineChart;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.TextArea;
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

  Path exportTarget;

  @Start
  void start(Stage stage) {
    view = HeadScopeApp.create(stage, new FxWorker(), new ModelRepository(dir.resolve("cache")));
    view.setFileAsker(FixedAnswers.saving(() -> exportTarget));
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

  /**
   * A grouped-query model (a tiny Llama: 4 query heads sharing 2 key/value heads): the graph's k and v edges enter
   * a key/value group, and pointing at one says which heads share it (docs/METHODS.md, "Edges").
   */
  @Test
  void aGroupedQueryModelsKAndVEdgesEnterTheirKeyValueGroup(FxRobot robot) throws Exception {
    waitFor(() -> view.viewModel().traceProperty().get() != null && !view.viewModel().busyProperty().get());
    Path llama = io.headscope.model.decoders.DecoderFolders.llama(dir.resolve("llama"), 5);
    robot.interact(() -> view.viewModel().textAProperty().set("a cab 12345"));
    robot.interact(() -> view.viewModel().loadModel(llama.toString()));
    waitFor(() -> view.viewModel().traceProperty().get() != null && !view.viewModel().busyProperty().get()
        && view.viewModel().traceProperty().get().heads() == 4);
    robot.clickOn("#tab-circuits");
    robot.interact(() -> {
      robot.lookup("#circuits-corrupted").queryAs(TextField.class).setText("a cab 54321");
      robot.lookup("#circuits-target").queryAs(TextField.class).setText("a");
      robot.lookup("#circuits-contrast").queryAs(TextField.class).setText("1");
    });
    robot.clickOn("#circuits-run");
    waitFor(() -> robot.lookup("#circuits-status").queryAs(Label.class).getText().startsWith("EAP of"));
    CircuitsView circuits = robot.lookup("#circuits-view").queryAs(CircuitsView.class);
    var scores = circuits.viewModel().resultProperty().get().scores();
    List<Integer> groups = circuits.viewModel().shownProperty().get().stream()
        .filter(i -> scores.edges().get(i).receiver().kind() == io.headscope.analysis.circuits.CircuitNode.Kind.GROUP)
        .toList();
    assertThat(groups).as("k and v edges among the drawn ones").isNotEmpty();
    String hover = null;
    // the first whose midpoint is nearest its own segment (edges from one sender into a layer run close together)
    for (int i : groups) {
      String label = scores.edges().get(i).label();
      assertThat(label).matches(".*->[12]-g[12]:[kv]");
      robot.moveTo(circuits.edgeOnScreen(i));
      WaitForAsyncUtils.waitForFxEvents();
      String text = robot.lookup("#circuits-hover").queryAs(Label.class).getText();
      if (text.startsWith(label + ":")) {
        hover = text;
        break;
      }
    }
    assertThat(hover).as("the hover line of a k or v edge").isNotNull().contains("key/value group")
        .contains("shared by heads ");
    String shots = System.getProperty("headscope.screenshots");
    if (shots != null) {
      var img = WaitForAsyncUtils.asyncFx(() -> circuits.getScene().getRoot().snapshot(null, null)).get();
      javax.imageio.ImageIO.write(javafx.embed.swing.SwingFXUtils.fromFXImage(img, null), "png",
          Path.of(shots, "circuits-llama-groups.png").toFile());
    }
  }

  /**
   * A user's second pass: mean ablation over a typed set (both ablations run, the curve of each, the line of
   * what changed), the threshold typed, the three exports through the Export menu's items (read back), and the
   * weights' detectors among the main window's Rank heads by.
   */
  @Test
  void meanAblationComparesBothExportsReadBackAndTheDetectorsJoinTheRanking(FxRobot robot) throws Exception {
    waitFor(() -> view.viewModel().traceProperty().get() != null && !view.viewModel().busyProperty().get());
    robot.clickOn("#tab-circuits");
    robot.interact(() -> {
      robot.lookup("#circuits-corrupted").queryAs(TextField.class).setText(CircuitsViewModelTest.CORRUPTED);
      robot.lookup("#circuits-target").queryAs(TextField.class).setText("she");
      robot.lookup("#circuits-contrast").queryAs(TextField.class).setText("he");
      robot.lookup("#circuits-corrupted-set").queryAs(TextArea.class)
          .setText(String.join("\n", CircuitsViewModelTest.SET));
    });
    robot.clickOn("#circuits-ablation").clickOn("mean over the set");
    CircuitsView circuits = robot.lookup("#circuits-view").queryAs(CircuitsView.class);
    assertThat(circuits.viewModel().ablationProperty().get()).isEqualTo(Ablation.MEAN);
    robot.clickOn("#circuits-run");
    waitFor(() -> robot.lookup("#circuits-status").queryAs(Label.class).getText().startsWith("EAP of"));
    assertThat(robot.lookup("#circuits-status").queryAs(Label.class).getText())
        .contains("(mean over 3 corrupted inputs ablation)");
    assertThat(robot.lookup("#circuits-comparison").queryAs(Label.class).getText())
        .startsWith("Ablation mean over 3 corrupted inputs vs corrupted:");
    LineChart<?, ?> curve = robot.lookup("#circuits-curve").queryAs(LineChart.class);
    assertThat(curve.getData()).extracting(x -> x.getName())
        .containsExactly("mean over 3 corrupted inputs", "corrupted");

    // the threshold typed: nothing drawn above an impossible one, the top N back at 0
    robot.doubleClickOn("#circuits-threshold").write("1e9");
    waitFor(() -> circuits.viewModel().shownProperty().get().isEmpty());
    robot.interact(() -> robot.lookup("#circuits-threshold").queryAs(TextField.class).setText("0"));
    waitFor(() -> circuits.viewModel().shownProperty().get().size() == Math.min(40,
        circuits.viewModel().resultProperty().get().scores().edges().size()));

    for (String[] x : new String[][] {{"edges.csv", "Circuit edge scores CSV (as headscope edges)…"},
        {"faithfulness.csv", "Circuit faithfulness CSV (as headscope circuit)…"},
        {"circuit.svg", "Circuit graph as figure (PNG 300 dpi or SVG)…"}}) {
      exportTarget = dir.resolve(x[0]);
      robot.clickOn("Export").clickOn(x[1]);
      waitFor(() -> Files.exists(exportTarget));
    }
    var r = circuits.viewModel().resultProperty().get();
    assertThat(Files.readAllLines(dir.resolve("edges.csv"))).hasSize(1 + r.scores().edges().size())
        .first().isEqualTo("sender,receiver,input,score");
    assertThat(Files.readAllLines(dir.resolve("faithfulness.csv"))).hasSize(1 + r.faithfulness().points().size())
        .first().isEqualTo("edges,metric,kept");
    String svg = Files.readString(dir.resolve("circuit.svg"));
    assertThat(svg.split("<line ", -1)).hasSize(1 + circuits.viewModel().shownProperty().get().size());
    assertThat(svg).contains("mean over 3 corrupted inputs ablation");

    robot.clickOn("#circuits-weights");
    waitFor(() -> circuits.viewModel().weightsProperty().get() != null);
    ChoiceBox<?> rank = robot.lookup("#rank-measure").queryAs(ChoiceBox.class);
    assertThat(rank.getItems()).extracting(Object::toString).contains("previous-token detector (Circuits)",
        "duplicate-token detector (Circuits)", "induction detector (Circuits)");
  }
}
