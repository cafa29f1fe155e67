package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.app.gui.exec.FxWorker;
import io.headscope.app.gui.main.MainView;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.model.AttentionTrace;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javafx.geometry.Bounds;
import javafx.geometry.Point2D;
import javafx.scene.Node;
import javafx.scene.input.KeyCode;
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
 * Issue 31.4 on the real window: a click meant as "select" never switches a head off, and every
 * switch can be undone and redone with its maps, so a slip costs one key, not a rerun's worth of doubt.
 */
@ExtendWith(ApplicationExtension.class)
@Tag("ui")
class GuiSwitchUndoTest {
  @TempDir static Path dir;
  static Path tiny;
  MainView view;

  @BeforeAll
  static void writeModel() {
    tiny = TinyBert.create(3, 4, 11).writeTo(dir.resolve("tiny")).config().getParent();
  }

  @Start
  void start(Stage stage) {
    view = HeadScopeApp.create(stage, new FxWorker(), new ModelRepository(dir.resolve("cache")));
    view.viewModel().setHeadSetsFile(dir.resolve("config/head-sets.txt"));
    stage.show();
    view.viewModel().textAProperty().set("the cat sat on the [MASK] .");
    view.viewModel().loadModel(tiny.toString());
  }

  private MainViewModel vm() {
    return view.viewModel();
  }

  private static void waitFor(BooleanSupplier condition) throws Exception {
    WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, condition::getAsBoolean);
    WaitForAsyncUtils.waitForFxEvents();
  }

  /** Waits until the trace as run is the one of {@code mask} (the run after a switch has arrived). */
  private void waitForRun(HeadMask mask) throws Exception {
    waitFor(() -> !vm().busyProperty().get() && vm().ablatedProperty().get() != null
        && vm().ablatedProperty().get().mask().off().equals(mask.off()) && vm().maskProperty().get().equals(mask));
  }

  private static void assertSameMaps(AttentionTrace a, AttentionTrace b) {
    for (int l = 0; l < a.layers(); l++) {
      for (int h = 0; h < a.heads(); h++) {
        assertThat(a.map(new Head(l, h))).as("map %d-%d", l + 1, h + 1).isDeepEqualTo(b.map(new Head(l, h)));
      }
    }
  }

  @Test
  void aPlainClickWhereTheCornerSwitchWasOnlySelects(FxRobot robot) throws Exception {
    waitFor(() -> vm().traceProperty().get() != null && !vm().busyProperty().get());
    Node frame = robot.lookup("#frame-2-3").query();
    Bounds b = frame.localToScreen(frame.getBoundsInLocal());
    // the top right corner, where the x switch sat on a ~30 px map (issue 31: head 8-7 went off so)
    robot.clickOn(new Point2D(b.getMaxX() - 4, b.getMinY() + 4));
    waitFor(() -> new Head(1, 2).equals(vm().selectedProperty().get()));
    Thread.sleep(300);
    WaitForAsyncUtils.waitForFxEvents();
    assertThat(vm().maskProperty().get().off()).isEmpty();
    assertThat(vm().undoNameProperty().get()).isEmpty();
    // a double click is still two selects
    robot.doubleClickOn(new Point2D(b.getMaxX() - 4, b.getMinY() + 4));
    WaitForAsyncUtils.waitForFxEvents();
    assertThat(vm().maskProperty().get().off()).isEmpty();
  }

  @Test
  void theRightClickMenuSwitchesAHeadOffByName(FxRobot robot) throws Exception {
    waitFor(() -> vm().traceProperty().get() != null && !vm().busyProperty().get());
    robot.clickOn("#thumb-3-1", javafx.scene.input.MouseButton.SECONDARY);
    robot.clickOn("Switch 3-1 off");
    waitForRun(HeadMask.of(Set.of(new Head(2, 0)), HeadMask.Mode.ZERO));
    assertThat(vm().selectedProperty().get()).isEqualTo(new Head(2, 0));
  }

  @Test
  void undoAndRedoRestoreTheMaskAndTheMapsAfterAHeadAndALayerSwitch(FxRobot robot) throws Exception {
    waitFor(() -> vm().traceProperty().get() != null && !vm().busyProperty().get());
    AttentionTrace intact = vm().traceProperty().get();

    robot.clickOn("#thumb-2-3");
    robot.type(KeyCode.X);  // the deliberate switch: select, then X
    HeadMask one = HeadMask.of(Set.of(new Head(1, 2)), HeadMask.Mode.ZERO);
    waitForRun(one);
    AttentionTrace oneRun = vm().ablatedProperty().get();
    assertThat(vm().undoNameProperty().get()).isEqualTo("switch 2-3 off");

    robot.clickOn("#layer-3");
    Set<Head> layer3 = Set.of(new Head(2, 0), new Head(2, 1), new Head(2, 2), new Head(2, 3));
    java.util.Set<Head> both = new java.util.TreeSet<>(layer3);
    both.add(new Head(1, 2));
    HeadMask two = HeadMask.of(both, HeadMask.Mode.ZERO);
    waitForRun(two);
    AttentionTrace twoRun = vm().ablatedProperty().get();
    assertThat(vm().undoNameProperty().get()).isEqualTo("switch layer 3 off");

    robot.clickOn("#thumb-1-1"); // focus off the text field: Ctrl+Z there undoes typing
    robot.press(KeyCode.CONTROL, KeyCode.Z).release(KeyCode.Z, KeyCode.CONTROL);
    waitForRun(one);
    assertSameMaps(vm().ablatedProperty().get(), oneRun);

    robot.press(KeyCode.CONTROL, KeyCode.Z).release(KeyCode.Z, KeyCode.CONTROL);
    waitFor(() -> !vm().busyProperty().get() && vm().maskProperty().get().isEmpty()
        && vm().ablatedProperty().get() == vm().traceProperty().get());
    assertSameMaps(vm().ablatedProperty().get(), intact);
    assertThat(vm().redoNameProperty().get()).isEqualTo("switch 2-3 off");

    robot.press(KeyCode.CONTROL, KeyCode.SHIFT, KeyCode.Z).release(KeyCode.Z, KeyCode.SHIFT, KeyCode.CONTROL);
    waitForRun(one);
    assertSameMaps(vm().ablatedProperty().get(), oneRun);
    robot.press(KeyCode.CONTROL, KeyCode.Y).release(KeyCode.Y, KeyCode.CONTROL);
    waitForRun(two);
    assertSameMaps(vm().ablatedProperty().get(), twoRun);
    assertThat(vm().redoNameProperty().get()).isEmpty();

    // in the input field Ctrl+Z is the field's undo of typing, never a head switch's
    robot.clickOn("#text-a").write("x");
    robot.press(KeyCode.CONTROL, KeyCode.Z).release(KeyCode.Z, KeyCode.CONTROL);
    WaitForAsyncUtils.waitForFxEvents();
    Thread.sleep(300);
    assertThat(vm().maskProperty().get()).isEqualTo(two);
    assertThat(vm().textAProperty().get()).isEqualTo("the cat sat on the [MASK] .");

    // the Heads menu names the step
    robot.clickOn("Heads");
    assertThat(robot.lookup("Undo switch layer 3 off").tryQuery()).isPresent();
    robot.type(KeyCode.ESCAPE);
  }

  @Test
  void aSavedHeadSetReappliedGivesTheSameMaskAndIsOneUndo(FxRobot robot) throws Exception {
    waitFor(() -> vm().traceProperty().get() != null && !vm().busyProperty().get());
    robot.interact(() -> {
      vm().toggleHead(new Head(0, 1));
      vm().toggleLayer(2);
    });
    HeadMask saved = vm().maskProperty().get();
    waitForRun(saved);
    robot.interact(() -> vm().saveHeadSet("gender"));
    assertThat(vm().headSets()).containsEntry("gender", "1-2, L3");

    robot.interact(vm()::switchAllOn);
    waitFor(() -> !vm().busyProperty().get() && vm().maskProperty().get().isEmpty());
    robot.clickOn("Heads").clickOn("Apply head set").clickOn("gender: 1-2, L3");
    waitForRun(saved);
    assertThat(vm().maskProperty().get()).isEqualTo(saved);
    assertThat(vm().undoNameProperty().get()).isEqualTo("head set gender");

    robot.interact(vm()::undo);
    waitFor(() -> !vm().busyProperty().get() && vm().maskProperty().get().isEmpty());
  }
}
