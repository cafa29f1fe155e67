package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.app.gui.exec.FxWorker;
import io.headscope.app.gui.main.MainView;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.gui.main.TokenStrip;
import io.headscope.app.gui.main.grid.ModelGridView;
import io.headscope.app.render.MapsShown;
import io.headscope.model.core.BertConfig;
import io.headscope.model.core.Head;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javafx.application.Platform;
import javafx.scene.Node;
import javafx.scene.canvas.Canvas;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.TabPane;
import javafx.scene.layout.Pane;
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
 * A 512-token input in the real window (a small model with 512 positions, so the model is quick and
 * the window's own work is what is tested): nothing is drawn that is not in view, the line drawing
 * waits for its tab, the token strip marks the cut, the old result stays (faded) while a new input
 * runs, and the maps toggle shows what switching a head off did. The FX thread is watched throughout
 * with a heartbeat; the bound here (1 s) only catches a freeze like the old 140 s one: the 100 ms goal
 * is measured on bert-base by {@code ./headscope bench gui}.
 */
@ExtendWith(ApplicationExtension.class)
@Tag("ui")
class GuiLongInputTest {
  @TempDir static Path dir;
  static Path model;
  MainView view;

  @BeforeAll
  static void writeModel() {
    BertConfig c = new BertConfig(TinyBert.VOCAB.size(), 16, 3, 4, 32, "gelu", 512, 2, 1e-12, List.of());
    model = TinyBert.create(c, 5).writeTo(dir.resolve("tiny512")).config().getParent();
  }

  @Start
  void start(Stage stage) {
    view = HeadScopeApp.create(stage, new FxWorker(), new ModelRepository(dir.resolve("cache")));
    stage.show();
    view.viewModel().textAProperty().set("the cat sat .");
    view.viewModel().loadModel(model.toString());
  }

  private MainViewModel vm() {
    return view.viewModel();
  }

  private static void waitFor(BooleanSupplier condition) throws Exception {
    WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, condition::getAsBoolean);
    WaitForAsyncUtils.waitForFxEvents();
  }

  private boolean idle() {
    return vm().traceProperty().get() != null && !vm().busyProperty().get()
        && Boolean.FALSE.equals(view.grid().getProperties().get(ModelGridView.PENDING));
  }

  @Test
  void a512TokenInputIsShownWithoutFreezingAndDrawsOnlyWhatIsInView(FxRobot robot) throws Exception {
    waitFor(() -> vm().layersProperty().get() == 3 && idle());
    List<Long> stalls = Collections.synchronizedList(new ArrayList<>());
    boolean[] watching = {true};
    Thread heartbeat = new Thread(() -> {
      while (watching[0]) {
        long posted = System.nanoTime();
        Platform.runLater(() -> stalls.add(System.nanoTime() - posted));
        try {
          Thread.sleep(5);
        } catch (InterruptedException e) {
          return;
        }
      }
    });
    heartbeat.setDaemon(true);
    heartbeat.start();

    robot.interact(() -> vm().textAProperty().set(LongText.words(700)));
    assertThat(vm().staleProperty().get()).as("the old result stays, marked stale").isTrue();
    assertThat(robot.lookup("#token-strip").queryAs(TokenStrip.class).chipCount()).isEqualTo(6); // [CLS] the cat sat . [SEP]
    waitFor(() -> idle() && vm().traceProperty().get().tokens().size() == 512);
    assertThat(vm().staleProperty().get()).isFalse();

    // the heatmap's canvas covers the viewport, not the 512 x 512 map
    ScrollPane heatScroll = (ScrollPane) robot.lookup("#head-heatmap").query().getParent().getParent().getParent();
    Pane heatmap = robot.lookup("#head-heatmap").queryAs(Pane.class);
    Canvas heatCanvas = (Canvas) heatmap.getChildrenUnmodifiable().get(0);
    robot.interact(() -> {
      javafx.scene.control.Slider zoom = (javafx.scene.control.Slider) view.lookup("#head-view .slider");
      zoom.setValue(zoom.getMax());
    });
    WaitForAsyncUtils.waitForFxEvents();
    assertThat(heatmap.getPrefWidth()).isGreaterThan(512 * 30);
    assertThat(heatCanvas.getWidth()).isLessThanOrEqualTo(heatScroll.getViewportBounds().getWidth() + 1);
    assertThat(heatCanvas.getHeight()).isLessThanOrEqualTo(heatScroll.getViewportBounds().getHeight() + 1);

    // the line drawing is not drawn until its tab is opened, then only a few lines per token
    Pane lines = robot.lookup("#head-lines").queryAs(Pane.class);
    Canvas linesCanvas = (Canvas) lines.getChildrenUnmodifiable().get(0);
    assertThat(linesCanvas.getWidth()).isZero();
    robot.interact(() -> ((TabPane) view.lookup("#head-view .tab-pane")).getSelectionModel().select(1));
    WaitForAsyncUtils.waitForFxEvents();
    assertThat(linesCanvas.getWidth()).isPositive();
    assertThat(linesCanvas.getHeight()).isLessThan(lines.getPrefHeight());
    String note = robot.lookup("#lines-note").queryAs(Label.class).getText();
    int drawn = Integer.parseInt(note.substring(0, note.indexOf(' ')));
    assertThat(drawn).isLessThanOrEqualTo(512 * 2).isPositive();

    // the cut is marked at the input and in the token strip
    assertThat(robot.lookup("#token-strip").queryAs(TokenStrip.class).chipCount()).isEqualTo(513);
    assertThat(robot.lookup("#input-note").queryAs(Label.class).getText()).contains("wordpieces cut");

    watching[0] = false;
    heartbeat.join();
    WaitForAsyncUtils.waitForFxEvents();
    long worst;
    synchronized (stalls) {
      worst = Collections.max(stalls) / 1_000_000;
    }
    assertThat(worst).as("the longest time the FX thread was busy, ms").isLessThan(1000);
  }

  @Test
  void theMapsToggleShowsWhatSwitchingAHeadOffDid(FxRobot robot) throws Exception {
    waitFor(() -> vm().layersProperty().get() == 3 && idle());
    robot.interact(() -> vm().textAProperty().set("the king and the queen sat in the big house ."));
    waitFor(() -> idle() && vm().traceProperty().get().tokens().contains("queen"));
    robot.clickOn("#thumb-3-1");
    robot.interact(() -> vm().toggleHead(new Head(1, 1)));
    waitFor(() -> idle() && vm().ablatedProperty().get().mask().isOff(new Head(1, 1)));

    robot.clickOn("#maps-difference");
    waitFor(() -> vm().session().mapsShownProperty().get() == MapsShown.DIFFERENCE && idle());
    Label title = robot.lookup("#head-title").queryAs(Label.class);
    assertThat(title.getText()).contains("3-1").contains("as run − intact").contains("1 head off");
    robot.clickOn("#maps-as-run");
    waitFor(() -> vm().session().mapsShownProperty().get() == MapsShown.AS_RUN);
    assertThat(title.getText()).contains("as run with 1 head off");
    // clicking the chosen button again keeps a choice
    robot.clickOn("#maps-as-run");
    WaitForAsyncUtils.waitForFxEvents();
    assertThat(vm().session().mapsShownProperty().get()).isEqualTo(MapsShown.AS_RUN);
    robot.clickOn("#maps-intact");
    waitFor(() -> vm().session().mapsShownProperty().get() == MapsShown.INTACT);
    assertThat(title.getText()).contains("intact model");
    Node help = robot.lookup("Help").query();
    assertThat(help).isNotNull();
  }
}
