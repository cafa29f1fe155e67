package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.headscope.analysis.export.HeadCsv;
import io.headscope.analysis.heads.HeadPattern;
import io.headscope.analysis.heads.HeadScore;
import io.headscope.app.gui.dialog.FileAsker;
import io.headscope.app.gui.exec.FxWorker;
import io.headscope.app.gui.main.MainView;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.gui.style.FxColors;
import io.headscope.app.render.CategoryColors;
import io.headscope.model.AttentionTrace;
import io.headscope.model.core.Head;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javafx.scene.control.Label;
import javafx.scene.control.TextField;
import javafx.scene.control.ToggleButton;
import javafx.scene.input.KeyCode;
import javafx.scene.layout.Region;
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

/** Real clicks on the real window, with a tiny model so each step is quick. Runs under Xvfb. */
@ExtendWith(ApplicationExtension.class)
@Tag("ui")
class GuiMainWindowTest {
  @TempDir static Path dir;
  static Path tiny;
  MainView view;
  Path exportTarget;
  Path folderAnswer;
  Path fileAnswer;

  @BeforeAll
  static void writeModel() {
    tiny = TinyBert.create(3, 4, 11).writeTo(dir.resolve("tiny")).config().getParent();
  }

  @Start
  void start(Stage stage) {
    view = HeadScopeApp.create(stage, new FxWorker(), new ModelRepository(dir.resolve("cache")));
    view.setFileAsker(new FileAsker() {
      @Override
      public Path save(String title, String extension, String suggestedName) {
        return exportTarget;
      }

      @Override
      public Path openFolder(String title) {
        return folderAnswer;
      }

      @Override
      public Path openFile(String title) {
        return fileAnswer;
      }
    });
    stage.show();
    view.viewModel().textAProperty().set("the cat sat .");
    view.viewModel().loadModel(tiny.toString());
  }

  private MainViewModel vm() {
    return view.viewModel();
  }

  /** The scores as the FX thread holds them now (the list is replaced there; iterating it here could race). */
  private List<HeadScore> scores() throws Exception {
    return WaitForAsyncUtils.asyncFx(() -> List.copyOf(vm().scoresProperty())).get();
  }

  private static void waitFor(BooleanSupplier condition) throws Exception {
    WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, condition::getAsBoolean);
    WaitForAsyncUtils.waitForFxEvents();
  }

  private void type(FxRobot robot, String text) throws Exception {
    robot.clickOn("#text-a");
    robot.push(KeyCode.CONTROL, KeyCode.A).push(KeyCode.BACK_SPACE);
    robot.write(text);
    waitFor(() -> text.equals(((TextField) robot.lookup("#text-a").query()).getText()));
  }

  @Test
  void typeSelectSwitchOffSeeThePredictionChangeAndExportTheMaps(FxRobot robot) throws Exception {
    waitFor(() -> vm().layersProperty().get() == 3);
    type(robot, "the cat sat on the [MASK] .");
    waitFor(() -> vm().traceProperty().get() != null && vm().traceProperty().get().tokens().contains("[MASK]")
        && !vm().busyProperty().get());
    assertThat(robot.lookup("#token-strip").queryAs(io.headscope.app.gui.main.TokenStrip.class).chipCount())
        .isEqualTo(vm().traceProperty().get().tokens().size());

    robot.clickOn("#thumb-2-3");
    waitFor(() -> new Head(1, 2).equals(vm().selectedProperty().get()));
    assertThat(robot.lookup("#head-title").queryAs(Label.class).getText()).contains("2-3");

    robot.clickOn("#head-power");
    waitFor(() -> vm().ablatedProperty().get() != null && vm().ablatedProperty().get().mask().isOff(new Head(1, 2))
        && !vm().busyProperty().get());
    int position = vm().traceProperty().get().tokens().indexOf("[MASK]");
    Label summary = robot.lookup("#summary-" + position).queryAs(Label.class);
    assertThat(summary.getText()).contains("KL", "→");
    assertThat(vm().predictionsProperty().get(0).changed()).isTrue();
    assertThat(robot.lookup("#power-2-3").queryAs(javafx.scene.control.ToggleButton.class).getText()).isEqualTo("OFF");

    exportTarget = dir.resolve("attention.json");
    robot.clickOn("Export").clickOn("Attention JSON…");
    waitFor(() -> Files.exists(exportTarget));
    JsonNode json = new ObjectMapper().readTree(exportTarget.toFile());
    AttentionTrace t = vm().traceProperty().get();
    assertThat(json.get("layers").asInt()).isEqualTo(3);
    assertThat(json.get("tokens").get(position).asText()).isEqualTo("[MASK]");
    assertThat((float) json.get("attention").get(1).get(2).get(position).get(1).asDouble())
        .isEqualTo(t.attention()[1][2][position][1]);

    // figures: the grid as SVG (parsed: title, caption, legend with every category, no controls) and
    // the head view as a 300-dpi PNG with all five category colours in the grid figure's legend
    exportTarget = dir.resolve("grid.svg");
    robot.clickOn("Export").clickOn("Grid as figure (PNG 300 dpi or SVG)…");
    waitFor(() -> Files.exists(exportTarget));
    org.w3c.dom.Document svg = javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder()
        .parse(exportTarget.toFile());
    assertThat(svg.getElementsByTagName("title").item(0).getTextContent()).contains("all heads");
    java.util.List<String> texts = new java.util.ArrayList<>();
    var nodes = svg.getElementsByTagName("text");
    for (int i = 0; i < nodes.getLength(); i++) {
      texts.add(nodes.item(i).getTextContent());
    }
    assertThat(String.join("|", texts)).contains("the cat sat on the [MASK] .").contains("maps: ");
    for (HeadPattern p : HeadPattern.values()) {
      assertThat(texts).anyMatch(x -> x.startsWith(p.label() + " "));
    }
    assertThat(texts).noneMatch(x -> x.equals("×") || x.equals("OFF"));
    exportTarget = dir.resolve("head.png");
    robot.clickOn("Export").clickOn("Head view as figure (PNG 300 dpi or SVG)…");
    waitFor(() -> Files.exists(exportTarget));
    java.awt.image.BufferedImage png = javax.imageio.ImageIO.read(exportTarget.toFile());
    assertThat(png.getWidth()).as("420 figure units at 300 dpi").isGreaterThanOrEqualTo((int) (420 * 300 / 96.0));
  }

  @Test
  void theWordsSwitchShowsWordLabelsInTheHeadViewAndTheExportWritesWords(FxRobot robot) throws Exception {
    waitFor(() -> vm().layersProperty().get() == 3 && !vm().busyProperty().get());
    type(robot, "the cats walked .");
    waitFor(() -> vm().traceProperty().get() != null && vm().traceProperty().get().tokens().contains("##s")
        && !vm().busyProperty().get());
    robot.clickOn("#thumb-2-3");
    waitFor(() -> new Head(1, 2).equals(vm().selectedProperty().get()));
    robot.clickOn("#units-words");
    waitFor(() -> vm().session().wordsShown());
    Label title = robot.lookup("#head-title").queryAs(Label.class);
    waitFor(() -> title.getText().endsWith("words"));
    io.headscope.app.render.HeadMatrix shown = heatmapMatrix(robot);
    assertThat(shown.rowTokens()).containsExactly("[CLS]", "the", "cats", "walked", ".", "[SEP]");
    assertThat(shown.colTokens()).contains("cats").doesNotContain("##s");

    exportTarget = dir.resolve("words.json");
    robot.clickOn("Export").clickOn("Attention JSON…");
    waitFor(() -> Files.exists(exportTarget));
    JsonNode json = new ObjectMapper().readTree(exportTarget.toFile());
    assertThat(json.get("words").get(2).asText()).isEqualTo("cats");
    assertThat(json.get("attention").get(0).get(0).size()).isEqualTo(6);
    exportTarget = dir.resolve("words-grid.svg");
    robot.clickOn("Export").clickOn("Grid as figure (PNG 300 dpi or SVG)…");
    waitFor(() -> Files.exists(exportTarget));
    assertThat(Files.readString(exportTarget)).contains("word-level");

    robot.clickOn("#units-wordpieces");
    waitFor(() -> !vm().session().wordsShown());
    assertThat(heatmapMatrix(robot).rowTokens()).contains("##s");
  }

  @Test
  void theLinguisticsTabScoresATreebankAndAClickOpensAHeadOnASentence(FxRobot robot) throws Exception {
    waitFor(() -> vm().traceProperty().get() != null && !vm().busyProperty().get());
    fileAnswer = Path.of("..", "analysis", "src", "test", "resources", "treebanks", "syntax.conllu");
    robot.clickOn("#tab-linguistics");
    robot.clickOn("#ling-open");
    Label status = robot.lookup("#ling-status").queryAs(Label.class);
    try {
      waitFor(() -> status.getText().contains(" sentences, "));
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("status: " + status.getText() + " / tab shown: "
          + robot.lookup("#linguistics-view").query().isVisible(), e);
    }
    javafx.scene.Node grid = robot.lookup("#ling-grid").query();
    javafx.geometry.Bounds b = grid.localToScreen(grid.getBoundsInLocal());
    // the grid puts 30 px of labels left and 18 px on top: click the middle of head 2-3
    double cell = (b.getWidth() - 30 - 4) / 4;
    robot.moveTo(new javafx.geometry.Point2D(b.getMinX() + 30 + 2.5 * cell, b.getMinY() + 18 + 1.5 * cell)).clickOn();
    waitFor(() -> new Head(1, 2).equals(vm().selectedProperty().get()));
    Label sentence = robot.lookup("#ling-sentence-status").queryAs(Label.class);
    waitFor(() -> sentence.getText().startsWith("Head 2-3 on sentence 1"));
    assertThat(robot.lookup("#ling-sentence").query().getBoundsInLocal().getWidth()).isGreaterThan(100);

    fileAnswer = dir.resolve("nothing-here.conllu");
    robot.clickOn("#ling-open");
    waitFor(() -> status.getText().startsWith("Could not use nothing-here.conllu"));
    assertThat(robot.lookup(".dialog-pane").tryQuery()).isEmpty();
    assertThat(sentence.getText()).startsWith("Head 2-3 on sentence 1");

    // coreference: a click opens the head on a window's mentions, not on dependency arcs
    fileAnswer = Path.of("..", "analysis", "src", "test", "resources", "treebanks", "coref.conllu");
    robot.clickOn("#ling-open");
    waitFor(() -> status.getText().startsWith("coref.conllu:"));
    assertThat(sentence.getText()).as("the first file's sentence is gone").isEmpty();
    @SuppressWarnings("unchecked")
    javafx.scene.control.ChoiceBox<io.headscope.app.gui.linguistics.RelationChoice> relation =
        robot.lookup("#ling-relation").queryAs(javafx.scene.control.ChoiceBox.class);
    robot.interact(() -> relation.setValue(relation.getItems().get(relation.getItems().size() - 1)));
    assertThat(robot.lookup("#ling-coref-best").query().isVisible()).isTrue();
    assertThat(robot.lookup("#ling-best").query().isVisible()).isFalse();
    robot.moveTo(new javafx.geometry.Point2D(b.getMinX() + 30 + 0.5 * cell, b.getMinY() + 18 + 0.5 * cell)).clickOn();
    waitFor(() -> sentence.getText().startsWith("Head 1-1 on window 1 of "));
    @SuppressWarnings("unchecked")
    javafx.scene.control.TableView<io.headscope.analysis.linguistics.CorefOnWindow.Pick> picks =
        robot.lookup("#ling-coref-picks").queryAs(javafx.scene.control.TableView.class);
    assertThat(picks.getItems()).isNotEmpty();
    assertThat(robot.lookup("#ling-coref").query().isVisible()).isTrue();
    assertThat(robot.lookup("#ling-sentence").query().isVisible()).isFalse();
    javafx.scene.text.TextFlow text = robot.lookup("#ling-coref-text").queryAs(javafx.scene.text.TextFlow.class);
    String shown = text.getChildren().stream().map(n -> ((javafx.scene.text.Text) n).getText())
        .reduce("", String::concat);
    assertThat(shown).contains("[");
  }

  @Test
  void rankingHeadsNamesTheTopOnesMarksThemInTheGridAndAClickOnlySelects(FxRobot robot) throws Exception {
    waitFor(() -> vm().scoresProperty().size() == 12 && !vm().busyProperty().get());
    @SuppressWarnings("unchecked")
    javafx.scene.control.ChoiceBox<String> measure = robot.lookup("#rank-measure").queryAs(javafx.scene.control.ChoiceBox.class);
    robot.interact(() -> {
      measure.setValue("attention to the previous token");
      vm().rank().topProperty().set(3);
    });
    javafx.scene.layout.FlowPane list = robot.lookup("#rank-list").queryAs(javafx.scene.layout.FlowPane.class);
    assertThat(list.getChildren()).hasSize(3);
    Head first = vm().rank().ranked().get(0).head();
    double best = scores().stream().mapToDouble(s -> s.stats().previous()).max().orElseThrow();
    assertThat(vm().score(first).stats().previous()).isEqualTo(best);
    Label name = (Label) robot.lookup("#thumb-" + first).queryAs(javafx.scene.layout.VBox.class).getChildren().get(1);
    assertThat(name.getText()).isEqualTo("#1 " + first);
    assertThat(robot.lookup("#thumb-" + first).query().getPseudoClassStates())
        .contains(javafx.css.PseudoClass.getPseudoClass("ranked"));
    var mask = vm().maskProperty().get();
    // the list is rebuilt when a screen publishes a measure (the choices change): click the list as it stands
    // once the FX thread is idle (under load a rebuild landed between the lookup and the click)
    WaitForAsyncUtils.waitForFxEvents();
    waitFor(() -> robot.lookup("#rank-" + first).tryQuery().map(n -> n.getScene() != null).orElse(false));
    robot.clickOn("#rank-" + first);
    waitFor(() -> first.equals(vm().selectedProperty().get()));
    assertThat(vm().maskProperty().get()).as("selecting never switches").isEqualTo(mask);
    robot.clickOn("#rank-clear");
    assertThat(list.getChildren()).isEmpty();
    assertThat(name.getText()).isEqualTo(first.toString());
  }

  @Test
  void theModelMenuSaysHowToGetABuiltInModelThisInstallLacks(FxRobot robot) throws Exception {
    waitFor(() -> vm().traceProperty().get() != null && !vm().busyProperty().get());
    ModelRepository.Embedded lacking = java.util.Arrays.stream(ModelRepository.Embedded.values())
        .filter(e -> !vm().canLoad(e)).findFirst().orElse(null);
    org.junit.jupiter.api.Assumptions.assumeTrue(lacking != null,
        "every built-in model is installed here (HEADSCOPE_MODELS=all): nothing to explain");
    robot.clickOn("Model");
    // the menu's first items are the built-in models in their order: step down to it with the keys (the
    // robot's click on this menu's items did not reach them under Xvfb here; the keys do as a user's would)
    for (int i = 0; i <= lacking.ordinal(); i++) {
      robot.type(KeyCode.DOWN);
    }
    robot.type(KeyCode.ENTER);
    waitFor(() -> robot.lookup("#help-page").tryQuery().isPresent());
    javafx.scene.Node page = robot.lookup("#help-page").query();
    StringBuilder text = new StringBuilder();
    java.util.ArrayDeque<javafx.scene.Node> todo = new java.util.ArrayDeque<>(List.of(page));
    while (!todo.isEmpty()) {
      javafx.scene.Node n = todo.pop();
      if (n instanceof javafx.scene.text.Text t) {
        text.append(t.getText());
      } else if (n instanceof javafx.scene.control.Labeled l) {
        text.append(l.getText());
      }
      if (n instanceof javafx.scene.control.ScrollPane sp && sp.getContent() != null) {
        todo.push(sp.getContent());
      }
      if (n instanceof javafx.scene.Parent p) {
        p.getChildrenUnmodifiable().forEach(todo::push);
      }
    }
    assertThat(text.toString()).contains("HEADSCOPE_MODELS=all ./headscope", "Hugging Face Hub", "finetune");
    assertThat(vm().modelNameProperty().get()).as("nothing was loaded").doesNotContain(lacking.modelName);
    robot.clickOn("OK");
  }

  @Test
  void theWholeLayerLinesHaveALegendOfHeadColoursThatHidesAHeadsLines(FxRobot robot) throws Exception {
    waitFor(() -> vm().traceProperty().get() != null && !vm().busyProperty().get());
    robot.interact(() -> vm().select(new Head(1, 2)));
    robot.clickOn("#tab-lines");
    robot.clickOn("#lines-whole-layer");
    javafx.scene.layout.FlowPane legend = robot.lookup("#lines-legend").queryAs(javafx.scene.layout.FlowPane.class);
    waitFor(() -> legend.getChildren().size() == 4);
    assertThat(legend.isVisible()).isTrue();
    for (int h = 0; h < 4; h++) {
      javafx.scene.control.ToggleButton b = robot.lookup("#lines-legend-2-" + (h + 1))
          .queryAs(javafx.scene.control.ToggleButton.class);
      assertThat(((javafx.scene.shape.Rectangle) b.getGraphic()).getFill())
          .isEqualTo(FxColors.rgb(io.headscope.app.render.LineSelection.headColor(h), 1));
    }
    java.util.function.IntSupplier drawn = () -> {
      String t = robot.lookup(n -> n instanceof Label l && l.getText() != null && l.getText().contains(" lines: the "))
          .queryAs(Label.class).getText();
      return Integer.parseInt(t.substring(0, t.indexOf(' ')));
    };
    int all = drawn.getAsInt();
    robot.clickOn("#lines-legend-2-1");
    waitFor(() -> drawn.getAsInt() < all);
    assertThat(robot.lookup("#lines-legend-2-1").queryAs(javafx.scene.control.ToggleButton.class).isSelected()).isFalse();
    robot.clickOn("#lines-legend-2-1");
    waitFor(() -> drawn.getAsInt() == all);
    robot.clickOn("#lines-whole-layer");
    waitFor(() -> !legend.isVisible());
    robot.clickOn("#tab-heatmap");
  }

  @Test
  void thePatchingScreenDrawsEachHeadsRecoveredShareAndAClickOpensTheHead(FxRobot robot) throws Exception {
    waitFor(() -> vm().traceProperty().get() != null && !vm().busyProperty().get());
    robot.clickOn("#tab-patch");
    robot.clickOn("#patch-clean").write("the king was in paris and [MASK] was a queen .");
    robot.clickOn("#patch-corrupted").write("the queen was in paris and [MASK] was a king .");
    robot.clickOn("#patch-target").write("she");
    robot.clickOn("#patch-contrast").write("he");
    robot.clickOn("#patch-run");
    Label status = robot.lookup("#patch-status").queryAs(Label.class);
    waitFor(() -> status.getText().startsWith("logit_diff: clean"));
    assertThat(status.getText()).contains("Spearman");
    javafx.scene.Node grid = robot.lookup("#patch-grid").query();
    assertThat(grid.getBoundsInLocal().getWidth()).isGreaterThan(100);
    assertThat(robot.lookup("#patch-attribution-grid").query().getBoundsInLocal().getWidth()).isGreaterThan(100);
    javafx.geometry.Bounds b = grid.localToScreen(grid.getBoundsInLocal());
    // the grid puts 30 px of labels left and 18 px on top: head 2-3 of the 3 x 4 grid
    double cell = (b.getWidth() - 30 - 4) / 4;
    robot.moveTo(new javafx.geometry.Point2D(b.getMinX() + 30 + 2.5 * cell, b.getMinY() + 18 + 1.5 * cell));
    waitFor(() -> robot.lookup("#patch-hover").queryAs(Label.class).getText().startsWith("head 2-3 (head)"));
    robot.clickOn();
    waitFor(() -> new Head(1, 2).equals(vm().selectedProperty().get()));
    assertThat(vm().maskProperty().get().isEmpty()).as("patching switches nothing off").isTrue();
  }

  @Test
  void theLensScreenDrawsEachHeadsDirectLogitAttributionAndTheHeadViewItsSaliencyStrip(FxRobot robot)
      throws Exception {
    waitFor(() -> vm().traceProperty().get() != null && !vm().busyProperty().get());
    robot.interact(() -> {
      vm().textAProperty().set("the king said that [MASK] was in paris .");
      vm().analyse();
    });
    waitFor(() -> vm().traceProperty().get().tokens().contains("[MASK]") && !vm().busyProperty().get());
    robot.clickOn("#tab-lens");
    robot.clickOn("#lens-target").write("she");
    robot.clickOn("#lens-contrast").write("he");
    robot.clickOn("#lens-run");
    Label status = robot.lookup("#lens-status").queryAs(Label.class);
    waitFor(() -> status.getText().startsWith("At [MASK]"));
    assertThat(robot.lookup("#lens-dla-note").queryAs(Label.class).getText()).contains("frozen-scale linearisation");
    robot.interact(() -> robot.lookup("#lens-view .scroll-pane").queryAs(javafx.scene.control.ScrollPane.class)
        .setVvalue(1));
    javafx.scene.Node grid = robot.lookup("#lens-dla-grid").query();
    assertThat(grid.getBoundsInLocal().getWidth()).isGreaterThan(100);
    javafx.geometry.Bounds b = grid.localToScreen(grid.getBoundsInLocal());
    // 30 px of layer names left, 18 px of head numbers on top: head 2-3 of the 3 x 4 grid
    double cell = (b.getWidth() - 30 - 4) / 4;
    robot.moveTo(new javafx.geometry.Point2D(b.getMinX() + 30 + 2.5 * cell, b.getMinY() + 18 + 1.5 * cell));
    waitFor(() -> robot.lookup("#lens-dla-hover").queryAs(Label.class).getText().startsWith("Head 2-3: "));
    robot.clickOn();
    waitFor(() -> new Head(1, 2).equals(vm().selectedProperty().get()));
    // the head view now draws the screen's saliency over its key tokens
    Label note = robot.lookup("#head-strip-note").queryAs(Label.class);
    waitFor(() -> note.isVisible() && note.getText().startsWith("Strip over the tokens"));
    io.headscope.app.gui.chart.HeatmapPane heat = robot.lookup("#head-heatmap")
        .queryAs(io.headscope.app.gui.chart.HeatmapPane.class);
    assertThat(heat.columnStrip()).containsExactly(vm().session().saliency().result().scores());
    robot.interact(() -> {
      vm().textAProperty().set("the queen said that [MASK] was in rome .");
      vm().analyse();
    });
    waitFor(() -> note.getText().contains("earlier input"));
    assertThat(heat.columnStrip()).isNull();
  }

  @Test
  void theNeuronViewShowsQAndKOfTheSelectedHeadAndAClickedTokenBecomesTheQuery(FxRobot robot) throws Exception {
    waitFor(() -> vm().traceProperty().get() != null && !vm().busyProperty().get());
    robot.interact(() -> vm().select(new Head(2, 1)));
    robot.clickOn("#tab-neuron");
    Label note = robot.lookup("#neuron-note").queryAs(Label.class);
    waitFor(() -> note.getText().startsWith("Head 3-2, query"));
    javafx.scene.canvas.Canvas pane = robot.lookup("#head-neuron").queryAs(javafx.scene.canvas.Canvas.class);
    var shown = view.headViewModel().neuron().viewProperty().get();
    assertThat(shown.head()).isEqualTo(new Head(2, 1));
    // the view's softmax is the model's own map row of that head
    float[] row = vm().traceProperty().get().map(new Head(2, 1))[shown.query()];
    for (int j = 0; j < row.length; j++) {
      assertThat(shown.softmax()[j]).isCloseTo(row[j], org.assertj.core.api.Assertions.within(1e-6));
    }
    // a click on the last token's name makes it the query
    int last = vm().traceProperty().get().tokens().size() - 1;
    javafx.geometry.Bounds b = pane.localToScreen(pane.getBoundsInLocal());
    double rowHeight = (b.getHeight() - 40 - 4) / (last + 1);
    robot.clickOn(new javafx.geometry.Point2D(b.getMinX() + 40, b.getMinY() + 40 + (last + 0.5) * rowHeight));
    waitFor(() -> view.headViewModel().neuron().viewProperty().get().query() == last);
    assertThat(note.getText()).contains("[SEP]");
    robot.clickOn("#tab-heatmap");
  }

  /** The matrix the head view's heatmap draws. */
  private static io.headscope.app.render.HeadMatrix heatmapMatrix(FxRobot robot) throws Exception {
    io.headscope.app.gui.chart.HeatmapPane pane =
        robot.lookup("#head-heatmap").queryAs(io.headscope.app.gui.chart.HeatmapPane.class);
    return WaitForAsyncUtils.asyncFx(pane::matrix).get();
  }

  @Test
  void thumbnailsAreFramedInTheirCategorysColourAndTheLegendHidesACategory(FxRobot robot) throws Exception {
    waitFor(() -> vm().scoresProperty().size() == 12 && !vm().busyProperty().get());
    for (HeadScore s : scores()) {
      Region frame = robot.lookup("#frame-" + s.head()).queryAs(Region.class);
      // an uncertain head is framed grey and dashed, never in its likeliest category's colour
      assertThat(frame.getBorder().getStrokes().get(0).getTopStroke()).as("frame of %s", s.head())
          .isEqualTo(s.uncertain() ? FxColors.of(io.headscope.app.render.UiColor.UNKNOWN) : FxColors.category(s.category()));
      assertThat(frame.getBorder().getStrokes().get(0).getTopStyle()).as("frame style of %s", s.head())
          .isEqualTo(s.uncertain() ? javafx.scene.layout.BorderStrokeStyle.DASHED : javafx.scene.layout.BorderStrokeStyle.SOLID);
    }
    long uncertain = scores().stream().filter(HeadScore::uncertain).count();
    Label unsure = robot.lookup("#legend-uncertain").queryAs(Label.class);
    assertThat(unsure.isVisible()).isEqualTo(uncertain > 0);
    if (uncertain > 0) {
      assertThat(unsure.getText()).isEqualTo("uncertain " + uncertain);
    }
    HeadPattern hidden = vm().score(new Head(0, 0)).category();
    long inIt = scores().stream().filter(s -> s.category() == hidden && !s.uncertain()).count();
    ToggleButton item = robot.lookup("#legend-" + hidden.columnName()).queryAs(ToggleButton.class);
    assertThat(item.getText()).isEqualTo(hidden.label() + " " + inIt);

    robot.clickOn(item);
    waitFor(() -> !vm().shownCategoriesProperty().get().contains(hidden));
    assertThat(item.isSelected()).isFalse();
    for (HeadScore s : scores()) {
      assertThat(robot.lookup("#thumb-" + s.head()).query().getOpacity()).as("%s", s.head())
          .isEqualTo(s.category() == hidden ? 0.15 : 1.0);
    }
    robot.clickOn("#legend-all");
    waitFor(() -> vm().shownCategoriesProperty().get().size() == HeadPattern.values().length);
    assertThat(robot.lookup("#thumb-1-1").query().getOpacity()).isEqualTo(1.0);
  }

  @Test
  void aCorpusRunShowsTheSharesAndItsCsvReadsBackWithOneRowPerHead(FxRobot robot) throws Exception {
    waitFor(() -> vm().traceProperty().get() != null && !vm().busyProperty().get());
    fileAnswer = Files.writeString(dir.resolve("ui-corpus.txt"), "the cat sat .\nthe dog ran .\ta big house .\n");
    robot.clickOn("#tab-corpus");
    robot.clickOn("#corpus-open");
    robot.clickOn("#corpus-run");
    waitFor(() -> robot.lookup("#corpus-grid").query().getBoundsInLocal().getHeight() > 50);
    assertThat(robot.lookup("#corpus-status").queryAs(Label.class).getText()).contains("2 inputs");
    assertThat(robot.lookup("#corpus-shares").query().isVisible()).isTrue();

    exportTarget = dir.resolve("ui-classify.csv");
    robot.clickOn("#corpus-export");
    waitFor(() -> Files.exists(exportTarget));
    try (var in = Files.newBufferedReader(exportTarget)) {
      var rows = HeadCsv.read(in, exportTarget.toString());
      assertThat(rows).hasSize(12);
      assertThat(rows.get(11).head()).isEqualTo(new Head(2, 3));
      assertThat(rows).allSatisfy(r -> assertThat(r.inputs()).isEqualTo(2));
    }
    assertThat(Files.readAllLines(exportTarget).get(0)).isEqualTo(String.join(",", HeadCsv.HEADER));
  }

  @Test
  void typingIsDebouncedSoTheModelRunsOncePerPauseNotPerKey(FxRobot robot) throws Exception {
    waitFor(() -> vm().traceProperty().get() != null && !vm().busyProperty().get());
    int[] runs = {0};
    robot.interact(() -> vm().traceProperty().addListener((o, a, b) -> runs[0]++));
    String text = "the dog ran to the house .";
    type(robot, text);
    waitFor(() -> vm().traceProperty().get() != null && vm().traceProperty().get().tokens().contains("house")
        && !vm().busyProperty().get());
    Thread.sleep(500);
    assertThat(runs[0]).isLessThan(text.length() / 3);
  }

  @Test
  void aFolderThatIsNotAModelShowsADialogAndThePreviousModelStaysUsable(FxRobot robot) throws Exception {
    waitFor(() -> vm().traceProperty().get() != null && !vm().busyProperty().get());
    folderAnswer = Files.createDirectories(dir.resolve("not-a-model"));
    robot.clickOn("Model").clickOn("Open Hugging Face folder…");
    waitFor(() -> robot.lookup(".dialog-pane").tryQuery().isPresent());
    javafx.scene.control.DialogPane pane = robot.lookup(".dialog-pane").queryAs(javafx.scene.control.DialogPane.class);
    assertThat(pane.getContentText()).contains("has no config.json");
    robot.clickOn("OK");
    assertThat(vm().layersProperty().get()).isEqualTo(3);
    robot.clickOn("#thumb-1-2");
    robot.clickOn("#head-power");
    waitFor(() -> vm().ablatedProperty().get() != null && vm().ablatedProperty().get().mask().isOff(new Head(0, 1)));
  }

  @Test
  void aLayerButtonSwitchesTheWholeLayerAndAllHeadsOnUndoesIt(FxRobot robot) throws Exception {
    waitFor(() -> vm().layersProperty().get() == 3 && !vm().busyProperty().get());
    type(robot, "a big dog ran [MASK] .");
    waitFor(() -> vm().traceProperty().get() != null && vm().traceProperty().get().tokens().contains("dog"));
    robot.clickOn("#layer-3");
    waitFor(() -> vm().maskProperty().get().off().size() == 4);
    for (int h = 1; h <= 4; h++) {
      assertThat(robot.lookup("#power-3-" + h).queryAs(javafx.scene.control.ToggleButton.class).getText())
          .isEqualTo("OFF");
    }
    robot.clickOn("#all-on");
    waitFor(() -> vm().maskProperty().get().isEmpty());
  }

  @Test
  void ctrlClickPicksSeveralHeadsAndXSwitchesThemOff(FxRobot robot) throws Exception {
    waitFor(() -> vm().traceProperty().get() != null && !vm().busyProperty().get());
    robot.press(KeyCode.CONTROL).clickOn("#thumb-1-1").clickOn("#thumb-2-2").release(KeyCode.CONTROL);
    waitFor(() -> vm().selectionProperty().get().size() == 2);
    robot.type(KeyCode.X);
    waitFor(() -> vm().maskProperty().get().off().size() == 2);
    assertThat(vm().maskProperty().get().off()).containsExactlyInAnyOrder(new Head(0, 0), new Head(1, 1));
  }

  @Test
  void theSweepRunsInTheBackgroundAndAClickOnItsHeatmapSelectsThatHead(FxRobot robot) throws Exception {
    waitFor(() -> vm().traceProperty().get() != null && !vm().busyProperty().get());
    robot.clickOn("#tab-sweep");
    robot.clickOn("#sweep-run");
    waitFor(() -> robot.lookup("#sweep-canvas").query().getBoundsInLocal().getHeight() > 50);
    javafx.scene.Node canvas = robot.lookup("#sweep-canvas").query();
    javafx.geometry.Bounds b = canvas.localToScreen(canvas.getBoundsInLocal());
    // layer 3, head 2: the canvas puts 34 px of labels left and 20 px on top; cells are square
    double cell = (b.getHeight() - 20 - 6) / 3;
    robot.moveTo(new javafx.geometry.Point2D(b.getMinX() + 34 + 1.5 * cell, b.getMinY() + 20 + 2.5 * cell)).clickOn();
    waitFor(() -> new Head(2, 1).equals(vm().selectedProperty().get()));
  }

  @Test
  void everyScreenIsListedUnderItsGroupAndReachedByKeys(FxRobot robot) throws Exception {
    waitFor(() -> vm().layersProperty().get() == 3);
    // every screen of the list has its entry, and the window opens on All heads with its name shown; looked up on
    // the FX thread, which may still be filling the window in (a lookup from the test thread walked a list of
    // children as it changed: IndexOutOfBoundsException in Parent.lookupAll, once in a full run)
    for (var d : io.headscope.app.gui.Screens.ALL) {
      assertThat(WaitForAsyncUtils.asyncFx(() -> robot.lookup("#tab-" + d.id()).tryQuery().isPresent()).get())
          .as(d.id()).isTrue();
    }
    Label title = robot.lookup("#screen-title").queryAs(Label.class);
    assertThat(title.getText()).isEqualTo("Heads › All heads");
    // Ctrl+PgDn walks the list in its order; Ctrl+PgUp walks back; Ctrl+digit jumps
    robot.clickOn("#tab-grid");
    robot.push(KeyCode.CONTROL, KeyCode.PAGE_DOWN);
    waitFor(() -> io.headscope.app.gui.Screens.ALL.get(0).id().equals(view.shownScreen()));
    assertThat(title.getText()).isEqualTo("Heads › " + io.headscope.app.gui.Screens.ALL.get(0).title());
    robot.push(KeyCode.CONTROL, KeyCode.PAGE_UP);
    waitFor(() -> "grid".equals(view.shownScreen()));
    var fourth = io.headscope.app.gui.Screens.ALL.get(2);
    robot.push(KeyCode.CONTROL, KeyCode.DIGIT4);
    waitFor(() -> fourth.id().equals(view.shownScreen()));
    assertThat(title.getText()).isEqualTo(fourth.group() + " › " + fourth.title());
    // the Analysis menu shows a screen too
    robot.clickOn("Analysis").clickOn("Layers: which layers can stand in for which");
    waitFor(() -> "layers".equals(view.shownScreen()));
    assertThat(title.getText()).isEqualTo("Flow › Layers");
  }
}
