package io.headscope.app.gui.dialog;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javafx.geometry.Bounds;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.Scene;
import javafx.scene.control.Hyperlink;
import javafx.scene.control.ScrollPane;
import javafx.scene.text.Text;
import javafx.scene.text.TextFlow;
import javafx.stage.Stage;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Issue 31, item 8: the Help menu's METHODS.md (as shipped in the jar) rendered in a real window, the
 * stylesheet applied, at the size the Help dialog gives it.
 */
@ExtendWith(ApplicationExtension.class)
@Tag("ui")
class HelpMarkdownTest {
  static final String METHODS = "/io/headscope/app/gui/help/METHODS.md";
  String source;
  MarkdownView view;
  Stage stage;

  @Start
  void start(Stage stage) throws IOException {
    this.stage = stage;
    try (InputStream in = HelpMarkdownTest.class.getResourceAsStream(METHODS)) {
      source = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    view = new MarkdownView(source);
    Scene scene = new Scene(view.node(), 900, 600);
    io.headscope.app.gui.style.Theme.apply(scene);
    stage.setScene(scene);
    stage.show();
  }

  // Would catch the old TextArea (raw source) or a renderer that lets markers through as text.
  @Test
  void noRawMarkdownMarkerIsShownAsText() {
    assertThat(texts(view.node().getContent())).hasSizeGreaterThan(500);
    // Inline code shows its literal: METHODS.md quotes WordPiece's "##" in backticks, as code.
    List<String> prose = new ArrayList<>();
    walk(view.node().getContent(), n -> {
      if (n instanceof Text t && !t.getStyleClass().contains("md-code")) {
        prose.add(t.getText());
      }
    });
    assertThat(prose.stream().filter(t -> t.contains("#") || t.contains("`") || t.contains("**") || t.contains("|--")))
        .isEmpty();
    assertThat(texts(view.node().getContent()).stream().filter(t -> t.contains("`"))).isEmpty();
  }

  // Would catch a heading lost, shown as a paragraph, or given an anchor that a #link cannot find.
  @Test
  void everyHeadingOfTheSourceIsAHeadingNodeWithItsAnchor() {
    List<String> expected = source.lines().filter(l -> l.matches("#{1,6} .*"))
        // the Markdown marks (code, strong, emphasis) are not text: "*Export › Plain figures*" shows its words
        .map(l -> l.replaceFirst("#+ ", "").replace("`", "").replace("**", "").replace("*", "").strip()).toList();
    assertThat(expected).hasSizeGreaterThan(20);
    List<String> shown = view.anchors().values().stream().map(n -> {
      assertThat(n.getStyleClass()).anyMatch(c -> c.matches("md-h[1-4]"));
      return texts(n).stream().collect(Collectors.joining()).strip();
    }).toList();
    assertThat(shown).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(view.anchors()).containsKeys("notation", "attention-map", "the-reference-checkpoint");
  }

  // Would catch a contents link that does nothing, or scrolls somewhere the heading is not visible.
  @Test
  void clickingAContentsLinkScrollsItsHeadingIntoView(FxRobot robot) {
    ScrollPane scroll = view.node();
    Node target = view.anchors().entrySet().stream().filter(e -> e.getKey().startsWith("task-level-sweep"))
        .findFirst().orElseThrow().getValue();
    assertThat(visible(scroll, target)).isFalse();
    Hyperlink link = robot.lookup(".md-toc-link").queryAllAs(Hyperlink.class).stream()
        .filter(h -> h.getText().startsWith("Task-level sweep")).findFirst().orElseThrow();
    robot.clickOn(link);
    WaitForAsyncUtils.waitForFxEvents();
    assertThat(scroll.getVvalue()).isGreaterThan(0.1);
    assertThat(visible(scroll, target)).isTrue();
    // and the heading is at the top of the view, not somewhere in it
    Bounds b = target.localToScene(target.getBoundsInLocal());
    Bounds port = scroll.localToScene(scroll.getBoundsInLocal());
    assertThat(b.getMinY() - port.getMinY()).isLessThan(40);
    // and its section's way back leads to the contents
    robot.clickOn(((Parent) target.getParent()).lookup(".md-back"));
    WaitForAsyncUtils.waitForFxEvents();
    assertThat(visible(scroll, link)).isTrue();
  }

  // Would catch a #anchor link in the text that is not wired, and an external link that is opened.
  @Test
  void aLinkInTheTextJumpsAndAnOutsideLinkStaysShut(FxRobot robot) {
    StringBuilder md = new StringBuilder("# Page\n\nSee [the end](#the-end) or [a paper](https://example.org/p).\n\n");
    for (int i = 0; i < 80; i++) {
      md.append("Filler paragraph ").append(i).append(".\n\n");
    }
    md.append("## The end\n\nLast words.\n");
    robot.interact(() -> {
      view = new MarkdownView(md.toString());
      stage.getScene().setRoot(view.node());
    });
    WaitForAsyncUtils.waitForFxEvents();
    List<Hyperlink> links = robot.lookup(".md-link").queryAllAs(Hyperlink.class).stream().toList();
    Hyperlink outside = links.stream().filter(h -> h.getText().equals("a paper")).findFirst().orElseThrow();
    assertThat(outside.getTooltip().getText()).contains("https://example.org/p").contains("network");
    robot.clickOn(links.stream().filter(h -> h.getText().equals("the end")).findFirst().orElseThrow());
    WaitForAsyncUtils.waitForFxEvents();
    assertThat(visible(view.node(), view.anchors().get("the-end"))).isTrue();
  }

  // Would catch the source's line wraps kept as breaks (the "broken wraps" of the issue).
  @Test
  void aParagraphTheSourceWrapsIsOneFlowingParagraph() {
    TextFlow para = flows(view.node().getContent()).stream()
        .filter(f -> String.join("", texts(f)).startsWith("Every family runs through")).findFirst().orElseThrow();
    String text = String.join("", texts(para));
    assertThat(text).contains("the same forward pass, hook points").contains("the few places its equations differ");
    assertThat(text).doesNotContain("\n");
    // It wraps at the window's width: narrower than the page, taller than one line.
    assertThat(para.getWidth()).isLessThan(900);
    assertThat(para.getHeight()).isGreaterThan(2 * 14);
  }

  /** Not a check: with -Dhelp.screenshot=FILE, shows the Help dialog as the app does and grabs the screen. */
  @Test
  void screenshot(FxRobot robot) throws Exception {
    String file = System.getProperty("help.screenshot");
    Assumptions.assumeTrue(file != null);
    robot.interact(() -> {
      stage.hide();
      new FxDialogService(() -> null, null, e -> { }, s -> { })
          .showMarkdown("What the numbers mean (docs/METHODS.md)", source);
    });
    WaitForAsyncUtils.sleep(2, TimeUnit.SECONDS);
    grab(file);
    // and a page further down (a table, lists, inline code), reached through the contents
    robot.clickOn(robot.lookup(".md-toc-link").queryAllAs(Hyperlink.class).stream()
        .filter(h -> h.getText().startsWith("Model families")).findFirst().orElseThrow());
    WaitForAsyncUtils.sleep(1, TimeUnit.SECONDS);
    grab(file.replace(".png", "-2.png"));
    robot.clickOn(robot.lookup("#md-model-families-what-each-changes-from-bert").query().getParent().lookup(".md-back"));
    WaitForAsyncUtils.waitForFxEvents();
    robot.clickOn(robot.lookup(".md-toc-link").queryAllAs(Hyperlink.class).stream()
        .filter(h -> h.getText().startsWith("Kovaleva")).findFirst().orElseThrow());
    WaitForAsyncUtils.sleep(1, TimeUnit.SECONDS);
    grab(file.replace(".png", "-3.png"));
  }

  private static void grab(String file) throws Exception {
    Process p = new ProcessBuilder("import", "-window", "root", Path.of(file).toString()).inheritIO().start();
    assertThat(p.waitFor()).isZero();
  }

  private static boolean visible(ScrollPane scroll, Node n) {
    Bounds b = n.localToScene(n.getBoundsInLocal());
    Bounds port = scroll.localToScene(scroll.getBoundsInLocal());
    return b.getMinY() >= port.getMinY() && b.getMaxY() <= port.getMaxY();
  }

  private static List<String> texts(Node root) {
    List<String> out = new ArrayList<>();
    walk(root, n -> {
      if (n instanceof Text t) {
        out.add(t.getText());
      } else if (n instanceof Hyperlink h) {
        out.add(h.getText());
      }
    });
    return out;
  }

  private static List<TextFlow> flows(Node root) {
    List<TextFlow> out = new ArrayList<>();
    walk(root, n -> {
      if (n instanceof TextFlow f) {
        out.add(f);
      }
    });
    return out;
  }

  private static void walk(Node n, java.util.function.Consumer<Node> visit) {
    visit.accept(n);
    // Hyperlinks hold their text in a skin's LabeledText; their getText() is read above instead.
    if (n instanceof Parent p && !(n instanceof Hyperlink)) {
      for (Node c : p.getChildrenUnmodifiable()) {
        walk(c, visit);
      }
    }
  }
}
