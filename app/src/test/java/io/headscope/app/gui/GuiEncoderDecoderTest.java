package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.app.gui.exec.FxWorker;
import io.headscope.app.gui.main.MainView;
import io.headscope.app.gui.predict.PredictionRow;
import io.headscope.app.render.HeadMatrix;
import io.headscope.model.EncoderDecoderModel;
import io.headscope.model.EncoderDecoderTrace;
import io.headscope.model.MaskPrediction.TokenProbability;
import io.headscope.model.core.AttentionKind;
import io.headscope.model.core.EncoderDecoderMask;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.encoderdecoders.EncoderDecoderFolders;
import io.headscope.model.repository.ModelRepository;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javafx.scene.Node;
import javafx.scene.control.Label;
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
 * Issue 41: a tiny T5 in the hub's layout opened in the app. The input row reads Source and Target; the selector
 * under it shows the encoder's, the decoder's or the cross maps in the grid and the head view. On cross, the head
 * view of every head holds exactly {@link EncoderDecoderTrace}'s cross map (rows the target's tokens, columns the
 * source's), whose maps are held to a float64 reference in EncoderDecoderFamiliesTest; the grid draws the same
 * maps. A cross head switched off from the grid (click, X) changes the next-target-token predictions, and the
 * panel's before and after are exactly {@link EncoderDecoderModel#trace}'s without and with that head off (the
 * service {@code predict --target} calls): the same difference, not one recomputed by the window. The same for a
 * tiny BART (learned positions, post-LayerNorm, {@code <s> ... </s>} on both sides) opened after the T5.
 *
 * <p>Every item of the Export menu on the T5 either writes a file with the encoder-decoder's content or writes
 * nothing and says why in one line; none writes an empty table or figure.
 */
@ExtendWith(ApplicationExtension.class)
@Tag("ui")
class GuiEncoderDecoderTest {
  @TempDir static Path dir;
  static Path t5;
  static Path bart;
  static final String SOURCE = EncoderDecoderFolders.source("t5");
  static final String TARGET = EncoderDecoderFolders.target("t5");
  MainView view;
  Path exportTarget;

  @BeforeAll
  static void writeModel() {
    t5 = EncoderDecoderFolders.write("t5", dir.resolve("t5"), 21);
    bart = EncoderDecoderFolders.write("bart", dir.resolve("bart"), 22);
  }

  @Start
  void start(Stage stage) {
    view = HeadScopeApp.create(stage, new FxWorker(), new ModelRepository(dir.resolve("cache")));
    view.setFileAsker(FixedAnswers.saving(() -> exportTarget));
    stage.show();
    view.viewModel().textAProperty().set(SOURCE);
    view.viewModel().textBProperty().set(TARGET);
    view.viewModel().loadModel(t5.toString());
  }

  private void idle(java.util.function.BooleanSupplier also) throws Exception {
    WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> view.viewModel().session().twoStacks() != null
        && view.viewModel().session().twoStacks().intact() != null && !view.viewModel().busyProperty().get()
        && also.getAsBoolean());
    WaitForAsyncUtils.waitForFxEvents();
  }

  @Test
  void crossMapsAreTheTracesAndACrossHeadOffMovesThePredictionsAsTheModelDoes(FxRobot robot) throws Exception {
    idle(() -> true);
    crossMapsAndASwitch(robot, "t5", t5);
  }

  @Test
  void bartInTheWindowToo(FxRobot robot) throws Exception {
    idle(() -> true);
    robot.interact(() -> {
      view.viewModel().textAProperty().set(EncoderDecoderFolders.source("bart"));
      view.viewModel().textBProperty().set(EncoderDecoderFolders.target("bart"));
      view.viewModel().loadModel(bart.toString());
    });
    idle(() -> view.viewModel().session().twoStacks().model().config().family().displayName.equals("BART"));
    crossMapsAndASwitch(robot, "bart", bart);
  }

  private void crossMapsAndASwitch(FxRobot robot, String type, Path folder) throws Exception {
    final String source = EncoderDecoderFolders.source(type);
    final String target = EncoderDecoderFolders.target(type);
    assertThat(robot.lookup("#text-a-label").queryAs(Label.class).getText()).isEqualTo("Source");
    assertThat(robot.lookup("#text-b-label").queryAs(Label.class).getText()).isEqualTo("Target");
    Node kindRow = robot.lookup("#kind-row").query();
    assertThat(kindRow.isVisible()).isTrue();

    try (EncoderDecoderModel ed = EncoderDecoderModel.load(
        new ModelRepository(dir.resolve("cache2")).resolve(folder.toString(), (m, f) -> { }))) {
      EncoderDecoderTrace want = ed.trace(source, target, EncoderDecoderMask.NONE, 5);
      assertThat(want.source().ids()).as("the hand-worked ids").containsExactly(EncoderDecoderFolders.sourceIds(type));
      assertThat(want.target().ids()).containsExactly(EncoderDecoderFolders.targetIds(type));
      int layers = ed.config().decoderLayers();
      int heads = ed.config().decoderHeads();

      // the encoder first: its shape and its source x source maps
      robot.clickOn("#kind-encoder");
      idle(() -> view.viewModel().layersProperty().get() == ed.config().encoderLayers()
          && view.viewModel().traceProperty().get().tokens().equals(want.source().tokens()));
      HeadMatrix enc = view.headViewModel().matrixProperty().get();
      assertThat(enc.rowTokens()).isEqualTo(want.source().tokens());
      assertThat(enc.colTokens()).isEqualTo(want.source().tokens());
      assertThat(enc.values()).isDeepEqualTo(want.encoder()[0][0]);

      // switch to cross: target queries by source keys, in the grid and in the head view of every head
      robot.clickOn("#kind-cross");
      idle(() -> view.viewModel().layersProperty().get() == layers
          && view.viewModel().traceProperty().get().tokens().equals(want.target().tokens()));
      assertThat(view.headViewModel().causal()).isFalse();
      for (int l = 0; l < layers; l++) {
        for (int h = 0; h < heads; h++) {
          Head head = new Head(l, h);
          robot.clickOn("#thumb-" + head);
          WaitForAsyncUtils.waitForFxEvents();
          HeadMatrix m = view.headViewModel().matrixProperty().get();
          assertThat(m.head()).isEqualTo(head);
          assertThat(m.rowTokens()).as("rows: the target's tokens").isEqualTo(want.target().tokens());
          assertThat(m.colTokens()).as("columns: the source's tokens").isEqualTo(want.source().tokens());
          assertThat(m.values()).as("head view of cross %s", head).isDeepEqualTo(want.cross()[l][h]);
          // the grid's thumbnails are drawn from the session's trace of the shown kind
          assertThat(view.viewModel().traceProperty().get().map(head)).as("grid of cross %s", head)
              .isDeepEqualTo(want.cross()[l][h]);
        }
      }
      assertThat(view.headViewModel().titleProperty().get()).startsWith("Cross head")
          .contains("rows: target queries, columns: source keys");

      // the predictions panel before any switch: the intact model's next target tokens, nothing changed
      List<PredictionRow> before = List.copyOf(view.viewModel().predictionsProperty());
      assertThat(before).hasSize(want.target().length());
      for (int i = 0; i < before.size(); i++) {
        assertThat(before.get(i).before()).isEqualTo(want.next().get(i));
        assertThat(before.get(i).changed()).isFalse();
      }

      // switch cross head 2-1 off from the grid: click it, press X
      Head off = new Head(1, 0);
      robot.clickOn("#thumb-" + off);
      robot.type(KeyCode.X);
      idle(() -> !view.viewModel().session().twoStacks().asRun().mask().isEmpty());
      EncoderDecoderMask mask = EncoderDecoderMask.NONE.with(AttentionKind.CROSS, HeadMask.of(Set.of(off),
          HeadMask.Mode.ZERO));
      assertThat(view.viewModel().session().twoStacks().asRun().mask()).isEqualTo(mask);
      EncoderDecoderTrace switched = ed.trace(source, target, mask, 5);
      List<PredictionRow> after = List.copyOf(view.viewModel().predictionsProperty());
      assertThat(after).hasSize(want.target().length());
      boolean moved = false;
      for (int i = 0; i < after.size(); i++) {
        PredictionRow r = after.get(i);
        assertThat(r.changed()).isTrue();
        assertThat(r.before()).isEqualTo(want.next().get(i));
        assertThat(r.after()).isEqualTo(switched.next().get(i));
        for (int k = 0; k < r.before().size(); k++) {
          TokenProbability b = r.before().get(k);
          TokenProbability a = r.after().get(k);
          moved |= a.id() != b.id() || a.probability() != b.probability();
          // the panel's change is the model's change: the same two runs
          assertThat(a.probability() - b.probability()).isEqualTo(
              switched.next().get(i).get(k).probability() - want.next().get(i).get(k).probability());
        }
      }
      assertThat(moved).as("switching a cross head off moves the next-token predictions").isTrue();
      // the maps as run: the switched-off head flows on as zeros (zero mode), the others as the model ran them
      robot.clickOn("#maps-as-run");
      WaitForAsyncUtils.waitForFxEvents();
      HeadMatrix run = view.headViewModel().matrixProperty().get();
      assertThat(run.head()).isEqualTo(off);
      assertThat(run.values()).isDeepEqualTo(switched.cross()[1][0]);
      for (float[] row : run.values()) {
        for (float v : row) {
          assertThat(v).isZero();
        }
      }

      // the decoder: causal, drawn hatched above the diagonal as GPT-2's maps
      robot.clickOn("#kind-decoder");
      idle(() -> view.viewModel().layersProperty().get() == layers);
      assertThat(view.headViewModel().causal()).isTrue();
      assertThat(view.viewModel().maskProperty().get().isEmpty()).as("the decoder's own switches: none").isTrue();
    }
  }

  /**
   * Every enabled item of the Export menu on the T5's cross maps: a file with content (the three kinds' JSON, a
   * figure, the page) or nothing written and one line saying why (the classification CSV: no categories on an
   * encoder-decoder). Before, the classification CSV came out as a header alone and the token-type figure as
   * nothing to export on cross.
   */
  @Test
  void everyExportWritesTheEncoderDecodersContentOrSaysWhyNot(FxRobot robot) throws Exception {
    idle(() -> true);
    robot.clickOn("#kind-cross");
    idle(() -> view.viewModel().traceProperty().get().tokens().size() == EncoderDecoderFolders.targetIds("t5").length);
    robot.clickOn("#thumb-2-2");
    List<String> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
    // a refusal shows in a dialog and in the status line (the window takes the error property back at once)
    view.viewModel().statusProperty().addListener((o, a, line) -> {
      if (line != null && line.startsWith("Error: ")) {
        errors.add(line.substring("Error: ".length()));
      }
    });
    java.util.Map<String, String> outcome = new java.util.LinkedHashMap<>();
    int n = 0;
    for (javafx.scene.control.MenuItem item : List.copyOf(view.exportMenu().getItems())) {
      if (item instanceof javafx.scene.control.SeparatorMenuItem || item instanceof javafx.scene.control.CheckMenuItem
          || item.isDisable()) {
        continue;
      }
      String name = item.getText();
      errors.clear();
      Path target = dir.resolve("export-" + (n++) + (name.contains("JSON") ? ".json" : name.contains("HTML") ? ".html"
          : name.contains("CSV") ? ".csv" : ".png"));
      exportTarget = target;
      robot.interact(item::fire);
      try {
        // the files are written whole under another name and renamed into place: there means complete
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> !errors.isEmpty() || java.nio.file.Files.exists(target));
      } catch (java.util.concurrent.TimeoutException e) {
        throw new AssertionError(name + ": neither written nor refused; status: "
            + view.viewModel().statusProperty().get(), e);
      }
      WaitForAsyncUtils.waitForFxEvents();
      if (!errors.isEmpty()) {
        assertThat(java.nio.file.Files.exists(target)).as(name + ": refused, nothing written").isFalse();
        assertThat(errors).as(name).hasSize(1);
        assertThat(errors.get(0)).as(name + ": one line").doesNotContain("\n").doesNotContain("Exception");
        outcome.put(name, "refused: " + errors.get(0));
        robot.clickOn("OK");
        continue;
      }
      long size = java.nio.file.Files.size(target);
      assertThat(size).as(name).isGreaterThan(200);
      outcome.put(name, size + " bytes");
      if (name.contains("CSV")) {
        assertThat(java.nio.file.Files.readAllLines(target)).as(name + ": rows beyond the header").hasSizeGreaterThan(1);
      }
      if (name.startsWith("Attention JSON")) {
        String json = java.nio.file.Files.readString(target);
        assertThat(json).contains("\"cross_attention\"").contains("\"target_tokens\"");
      }
      if (name.startsWith("Token types")) {
        // the figure names the cross kind's token types: the source's first token and its </s>
        java.nio.file.Path svg = dir.resolve("token-types-" + n + ".svg");
        exportTarget = svg;
        robot.interact(item::fire);
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> java.nio.file.Files.exists(svg));
        String text = java.nio.file.Files.readString(svg);
        assertThat(text).contains("source&apos;s first token").contains("&lt;/s&gt;");
      }
    }
    assertThat(outcome.keySet()).as(outcome.toString()).anyMatch(k -> k.startsWith("Head classification CSV"))
        .anyMatch(k -> k.startsWith("Token types")).anyMatch(k -> k.startsWith("Attention JSON"));
    assertThat(outcome.get("Head classification CSV (this sentence)…")).as(outcome.toString())
        .startsWith("refused: ").contains("encoder-decoder");
    assertThat(outcome.get("Token types per layer as figure (PNG 300 dpi or SVG)…")).as(outcome.toString())
        .endsWith("bytes");
    System.err.println("GuiEncoderDecoderTest exports: " + outcome);
  }
}
