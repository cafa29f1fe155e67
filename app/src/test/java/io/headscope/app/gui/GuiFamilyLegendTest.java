package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.app.gui.exec.FxWorker;
import io.headscope.app.gui.main.MainView;
import io.headscope.app.gui.main.facts.HeadFactsView;
import io.headscope.app.gui.main.grid.CategoryLegend;
import io.headscope.app.gui.main.rank.RankViewModel;
import io.headscope.model.core.Head;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.families.FamilyModelFolders;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javafx.geometry.Bounds;
import javafx.scene.Node;
import javafx.scene.control.ChoiceBox;
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

/**
 * Issue 40's last walk-through on the RoBERTa and GPT-2 folders at 1280x800: RoBERTa's token types are named
 * {@code <s>} and {@code </s>} (panel, per-layer note, ranking), never {@code [CLS]}; on GPT-2 the legend says
 * categories are withheld instead of showing the five chips, the head's token-type heading says what its rows
 * hold (the first token as the attention sink), the window still fits, and "Rank heads by" is never blank.
 */
@ExtendWith(ApplicationExtension.class)
@Tag("ui")
class GuiFamilyLegendTest {
  @TempDir static Path dir;
  MainView view;
  Stage stage;

  @BeforeAll
  static void writeModels() {
    FamilyModelFolders.write("roberta", dir.resolve("roberta"), 3);
    FamilyModelFolders.write("gpt2", dir.resolve("gpt2"), 3);
  }

  @Start
  void start(Stage stage) {
    this.stage = stage;
    view = HeadScopeApp.create(stage, new FxWorker(), new ModelRepository(dir.resolve("cache")));
    stage.setX(0);
    stage.setY(0);
    stage.setWidth(1280);
    stage.setHeight(800);
    stage.show();
    view.viewModel().textAProperty().set("the cat sat on the <mask> .");
    view.viewModel().loadModel(dir.resolve("roberta").toString());
  }

  private void settle(String name) {
    try {
      WaitForAsyncUtils.waitFor(120, TimeUnit.SECONDS, () -> view.viewModel().modelNameProperty().get().contains(name)
          && view.viewModel().traceProperty().get() != null && !view.viewModel().busyProperty().get());
      WaitForAsyncUtils.sleep(500, TimeUnit.MILLISECONDS);
      WaitForAsyncUtils.waitForFxEvents();
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("the window did not settle on " + name, e);
    }
  }

  /** Every label's text under a node. */
  private static List<String> texts(Node root) {
    return root.lookupAll(".label").stream().filter(n -> n instanceof Label && n.isVisible())
        .map(n -> ((Label) n).getText()).filter(t -> t != null).toList();
  }

  @Test
  @SuppressWarnings("unchecked")
  void robertaNamesItsOwnSpecialsAndGpt2sLegendSaysCategoriesAreWithheld(FxRobot robot) {
    settle("roberta");
    robot.interact(() -> view.viewModel().select(new Head(1, 1)));
    WaitForAsyncUtils.waitForFxEvents();
    ChoiceBox<String> measure = robot.lookup("#rank-measure").queryAs(ChoiceBox.class);
    assertThat(measure.getValue()).isEqualTo(RankViewModel.NONE);
    assertThat(measure.getItems()).contains("attention to <s>", "attention to </s>")
        .noneMatch(s -> s.contains("[CLS]") || s.contains("[SEP]"));
    Node facts = robot.lookup("#head-facts").query();
    assertThat(texts(facts)).contains("<s>", "</s>").noneMatch(s -> s.contains("[CLS]") || s.contains("[SEP]"));
    assertThat(robot.lookup("#facts-types-heading").queryAs(Label.class).getText()).isEqualTo(HeadFactsView.TYPES_ENCODER);
    assertThat(robot.lookup("#layer-types-note").queryAs(Label.class).getText()).contains("<s>, </s>")
        .doesNotContain("[CLS]");
    assertThat(robot.lookup("#legend-vertical").query().isVisible()).isTrue();
    assertThat(robot.lookup("#legend-withheld").query().isVisible()).isFalse();

    robot.interact(() -> {
      view.viewModel().textAProperty().set("the cat sat on the mat");
      view.viewModel().loadModel(dir.resolve("gpt2").toString());
    });
    settle("gpt2");
    robot.interact(() -> view.viewModel().select(new Head(1, 1)));
    WaitForAsyncUtils.waitForFxEvents();
    // the five chips would name categories no head has: the legend says why instead
    for (String chip : List.of("#legend-vertical", "#legend-diagonal", "#legend-heterogeneous")) {
      assertThat(robot.lookup(chip).query().isVisible()).as(chip).isFalse();
    }
    Label withheld = robot.lookup("#legend-withheld").queryAs(Label.class);
    assertThat(withheld.isVisible()).isTrue();
    assertThat(withheld.getText()).isEqualTo(CategoryLegend.WITHHELD);
    // the token-type heading says what the decoder's rows are, and the rows are there
    Label heading = robot.lookup("#facts-types-heading").queryAs(Label.class);
    assertThat(heading.isVisible()).isTrue();
    assertThat(heading.getText()).isEqualTo(HeadFactsView.TYPES_DECODER);
    assertThat(robot.lookup("#facts-sink").tryQuery()).isPresent();
    assertThat(robot.lookup("#layer-types-note").queryAs(Label.class).getText()).contains("attention sink");
    assertThat(measure.getValue()).isEqualTo(RankViewModel.NONE);
    // the Predictions panel names the sweep's measure as the sweep does on this model and input
    Label sweepChoice = (Label) robot.lookup("#target-metric").query().lookup(".label");
    assertThat(sweepChoice.getText()).isEqualTo(io.headscope.analysis.ablation.TargetMetric.NEXT_WORDS);
    // the same 2 x 3 shape as RoBERTa's: the legend's new line must not leave the thumbnails small (the
    // walk-through's GPT-2 grid at 1280x800), they fill the pane as far as its width and height allow
    javafx.scene.control.ScrollPane scroll = robot.lookup("#model-grid").lookup(".scroll-pane")
        .queryAs(javafx.scene.control.ScrollPane.class);
    double byWidth = (scroll.getViewportBounds().getWidth() - 48 - 3 * 14) / 3;
    double byHeight = (scroll.getViewportBounds().getHeight() - 24 - 2 * 22) / 2;
    double expected = Math.min(180, Math.min(byWidth, byHeight));
    assertThat(robot.lookup("#thumb-1-1").query().getBoundsInLocal().getWidth()).as("a thumbnail of the GPT-2")
        .isGreaterThan(0.8 * expected);
    // the legend's line stays in its pane: the head view is not pushed out of the 1280-px window
    Node head = robot.lookup("#head-view").query();
    Bounds onScreen = head.localToScreen(head.getBoundsInLocal());
    assertThat(onScreen.getMaxX()).as("the head view's right edge").isLessThanOrEqualTo(stage.getX() + stage.getWidth() + 1);
  }
}
