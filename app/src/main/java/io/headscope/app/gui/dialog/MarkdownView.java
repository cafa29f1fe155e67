package io.headscope.app.gui.dialog;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javafx.geometry.Bounds;
import javafx.scene.Node;
import javafx.scene.control.Hyperlink;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.ColumnConstraints;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.scene.text.Text;
import javafx.scene.text.TextFlow;
import org.commonmark.ext.gfm.tables.TableBlock;
import org.commonmark.ext.gfm.tables.TableCell;
import org.commonmark.ext.gfm.tables.TableHead;
import org.commonmark.ext.gfm.tables.TableRow;
import org.commonmark.ext.gfm.tables.TablesExtension;
import org.commonmark.ext.heading.anchor.IdGenerator;
import org.commonmark.node.BlockQuote;
import org.commonmark.node.BulletList;
import org.commonmark.node.Code;
import org.commonmark.node.Emphasis;
import org.commonmark.node.FencedCodeBlock;
import org.commonmark.node.HardLineBreak;
import org.commonmark.node.Heading;
import org.commonmark.node.HtmlInline;
import org.commonmark.node.IndentedCodeBlock;
import org.commonmark.node.Link;
import org.commonmark.node.ListItem;
import org.commonmark.node.OrderedList;
import org.commonmark.node.Paragraph;
import org.commonmark.node.SoftLineBreak;
import org.commonmark.node.StrongEmphasis;
import org.commonmark.node.ThematicBreak;
import org.commonmark.parser.Parser;

/**
 * A Markdown page (the Help menu's METHODS.md) as JavaFX nodes: commonmark-java parses it, this class
 * walks the tree into TextFlows in a ScrollPane, styled by headscope.css ({@code .md-*}). No WebView:
 * it is not in the stack, and a page of our own text needs no browser. A table of contents at the top
 * links to the sections; {@code #anchor} links scroll to their heading; other links are shown, never
 * opened (the app goes to no network).
 */
public final class MarkdownView {
  private static final Parser PARSER = Parser.builder().extensions(List.of(TablesExtension.create())).build();

  private final ScrollPane scroll = new ScrollPane();
  private final VBox page = new VBox();
  /** Anchor (GitHub's spelling, as the heading-anchor extension makes it) to its heading, in page order. */
  private final Map<String, Node> anchors = new LinkedHashMap<>();
  private final Map<Heading, String> headingAnchors = new LinkedHashMap<>();
  private final IdGenerator ids = IdGenerator.builder().build();
  private final List<Hyperlink> backLinks = new ArrayList<>();
  private Node toc;

  /** Renders {@code markdown}; the page is {@link #node()}. */
  public MarkdownView(String markdown) {
    page.getStyleClass().add("md-page");
    scroll.getStyleClass().add("md-scroll");
    // Fit to width: paragraphs wrap at the window's width and nothing scrolls sideways.
    scroll.setFitToWidth(true);
    scroll.setContent(page);
    org.commonmark.node.Node doc = PARSER.parse(markdown);
    List<Node> body = new ArrayList<>();
    List<Heading> headings = new ArrayList<>();
    boolean titled = doc.getFirstChild() instanceof Heading h && h.getLevel() == 1;
    int firstSection = -1;
    for (org.commonmark.node.Node n = doc.getFirstChild(); n != null; n = n.getNext()) {
      if (firstSection < 0 && n instanceof Heading && (!titled || n != doc.getFirstChild())) {
        firstSection = body.size();
      }
      body.add(block(n, headings));
    }
    // The contents go after the title and its introduction, before the first section: the page opens
    // with what it is, then where to go.
    int sections = headings.size() - (titled ? 1 : 0);
    if (sections > 1) {
      toc = contents(headings.subList(titled ? 1 : 0, headings.size()));
      body.add(firstSection, toc);
    } else {
      backLinks.forEach(b -> {
        b.setVisible(false);
        b.setManaged(false);
      });
    }
    page.getChildren().setAll(body);
  }

  public ScrollPane node() {
    return scroll;
  }

  /** Every heading's anchor, in page order, to its node (tests, and links). */
  public Map<String, Node> anchors() {
    return Map.copyOf(anchors);
  }

  /**
   * Scrolls so that the heading with this anchor is at the top of the view (or as near as the end of
   * the page allows).
   *
   * @return false when no heading has that anchor
   */
  public boolean scrollTo(String anchor) {
    Node target = anchors.get(anchor);
    if (target == null) {
      return false;
    }
    scrollTo(target);
    return true;
  }

  private void scrollTo(Node heading) {
    // A section heading's row carries the space above it: land there, not on the bare text.
    Node target = heading.getParent() != null && heading.getParent().getStyleClass().contains("md-h2-row")
        ? heading.getParent() : heading;
    scroll.layout();
    Bounds inPage = page.sceneToLocal(target.localToScene(target.getBoundsInLocal()));
    double room = page.getHeight() - scroll.getViewportBounds().getHeight();
    scroll.setVvalue(room <= 0 ? 0 : Math.max(0, Math.min(1, inPage.getMinY() / room)));
  }

  private Node contents(List<Heading> headings) {
    VBox toc = new VBox();
    toc.getStyleClass().add("md-toc");
    Label title = new Label("Contents");
    title.getStyleClass().add("md-toc-title");
    toc.getChildren().add(title);
    int top = headings.stream().mapToInt(Heading::getLevel).min().orElse(2);
    for (Heading h : headings) {
      String anchor = headingAnchors.get(h);
      Hyperlink link = new Hyperlink(plain(h));
      link.getStyleClass().add("md-toc-link");
      // Sub-sections indented under their section.
      link.setStyle("-fx-padding: 0 0 0 " + 16 * (h.getLevel() - top) + ";");
      link.setOnAction(e -> scrollTo(anchor));
      toc.getChildren().add(link);
    }
    return toc;
  }

  private Node block(org.commonmark.node.Node n, List<Heading> headings) {
    if (n instanceof Heading h) {
      return heading(h, headings);
    } else if (n instanceof Paragraph) {
      return flow(n, "md-paragraph");
    } else if (n instanceof BulletList || n instanceof OrderedList) {
      return list(n, headings);
    } else if (n instanceof FencedCodeBlock f) {
      return code(f.getLiteral());
    } else if (n instanceof IndentedCodeBlock c) {
      return code(c.getLiteral());
    } else if (n instanceof TableBlock t) {
      return table(t);
    } else if (n instanceof BlockQuote) {
      VBox quote = children(n, headings);
      quote.getStyleClass().add("md-quote");
      return quote;
    } else if (n instanceof ThematicBreak) {
      VBox rule = new VBox();
      rule.getStyleClass().add("md-rule");
      return rule;
    }
    // HTML blocks and the like: their text as it stands rather than nothing.
    return flow(n, "md-paragraph");
  }

  private VBox children(org.commonmark.node.Node parent, List<Heading> headings) {
    VBox box = new VBox();
    box.getStyleClass().add("md-blocks");
    for (org.commonmark.node.Node c = parent.getFirstChild(); c != null; c = c.getNext()) {
      box.getChildren().add(block(c, headings));
    }
    return box;
  }

  private Node heading(Heading h, List<Heading> headings) {
    TextFlow flow = flow(h, "md-h" + Math.min(h.getLevel(), 4));
    String anchor = ids.generateId(plain(h));
    flow.setId("md-" + anchor);
    anchors.put(anchor, flow);
    headings.add(h);
    headingAnchors.put(h, anchor);
    if (h.getLevel() != 2) {
      return flow;
    }
    // A way back from a section to the contents (a reader jumps there and back, as on a web page).
    Hyperlink back = new Hyperlink("\u2191 Contents");
    back.getStyleClass().add("md-back");
    back.setMinWidth(Hyperlink.USE_PREF_SIZE);
    back.setOnAction(e -> {
      if (toc != null) {
        scrollTo(toc);
      }
    });
    backLinks.add(back);
    HBox row = new HBox(flow, back);
    row.getStyleClass().add("md-h2-row");
    row.setAlignment(javafx.geometry.Pos.BOTTOM_LEFT);
    HBox.setHgrow(flow, Priority.ALWAYS);
    return row;
  }

  private Node list(org.commonmark.node.Node list, List<Heading> headings) {
    VBox box = new VBox();
    box.getStyleClass().add("md-list");
    int number = list instanceof OrderedList o ? o.getMarkerStartNumber() : 0;
    for (org.commonmark.node.Node item = list.getFirstChild(); item != null; item = item.getNext()) {
      if (!(item instanceof ListItem)) {
        continue;
      }
      Label marker = new Label(list instanceof OrderedList ? (number++) + "." : "\u2022");
      marker.getStyleClass().add("md-marker");
      marker.setMinWidth(Label.USE_PREF_SIZE);
      VBox content = children(item, headings);
      HBox.setHgrow(content, Priority.ALWAYS);
      // Wrapped text stays inside its item: the content may be narrower than it would like.
      content.setMinWidth(0);
      HBox row = new HBox(marker, content);
      row.getStyleClass().add("md-item");
      box.getChildren().add(row);
    }
    return box;
  }

  private Node code(String literal) {
    Text t = new Text(literal.endsWith("\n") ? literal.substring(0, literal.length() - 1) : literal);
    t.getStyleClass().addAll("md-text", "md-code");
    TextFlow flow = new TextFlow(t);
    flow.getStyleClass().add("md-code-block");
    return flow;
  }

  private Node table(TableBlock t) {
    GridPane grid = new GridPane();
    grid.getStyleClass().add("md-table");
    int row = 0;
    int columns = 0;
    List<Integer> lengths = new ArrayList<>();
    for (org.commonmark.node.Node section = t.getFirstChild(); section != null; section = section.getNext()) {
      boolean head = section instanceof TableHead;
      for (org.commonmark.node.Node r = section.getFirstChild(); r != null; r = r.getNext()) {
        if (!(r instanceof TableRow)) {
          continue;
        }
        int col = 0;
        for (org.commonmark.node.Node c = r.getFirstChild(); c != null; c = c.getNext()) {
          if (c instanceof TableCell) {
            TextFlow cell = flow(c, head ? "md-th" : "md-td");
            cell.setMaxWidth(Double.MAX_VALUE);
            cell.setMaxHeight(Double.MAX_VALUE);
            while (lengths.size() <= col) {
              lengths.add(0);
            }
            lengths.set(col, lengths.get(col) + plain(c).length());
            grid.add(cell, col++, row);
          }
        }
        columns = Math.max(columns, col);
        row++;
      }
    }
    // Shares of the page's width by how much text each column holds (a short column keeps a tenth of
    // it): cells wrap like paragraphs instead of running off, and long code is cut less often.
    double total = 0;
    double[] weights = new double[columns];
    for (int i = 0; i < columns; i++) {
      weights[i] = Math.max(lengths.get(i), 1);
      total += weights[i];
    }
    double floor = Math.min(10, 100.0 / columns);
    double free = 100 - floor * columns;
    for (int i = 0; i < columns; i++) {
      ColumnConstraints cc = new ColumnConstraints();
      cc.setPercentWidth(floor + free * weights[i] / total);
      grid.getColumnConstraints().add(cc);
    }
    return grid;
  }

  /** A block's inline content as one wrapping TextFlow: the source's line breaks are spaces. */
  private TextFlow flow(org.commonmark.node.Node block, String styleClass) {
    TextFlow flow = new TextFlow();
    flow.getStyleClass().add(styleClass);
    inlines(block, flow.getChildren(), List.of());
    return flow;
  }

  private void inlines(org.commonmark.node.Node parent, List<Node> out, List<String> styles) {
    for (org.commonmark.node.Node n = parent.getFirstChild(); n != null; n = n.getNext()) {
      if (n instanceof org.commonmark.node.Text t) {
        out.add(text(t.getLiteral(), styles));
      } else if (n instanceof Code c) {
        out.add(text(c.getLiteral(), with(styles, "md-code")));
      } else if (n instanceof Emphasis) {
        inlines(n, out, with(styles, "md-em"));
      } else if (n instanceof StrongEmphasis) {
        inlines(n, out, with(styles, "md-strong"));
      } else if (n instanceof SoftLineBreak) {
        out.add(text(" ", styles));
      } else if (n instanceof HardLineBreak) {
        out.add(text("\n", styles));
      } else if (n instanceof Link l) {
        out.add(link(l));
      } else if (n instanceof HtmlInline h) {
        out.add(text(h.getLiteral(), styles));
      } else {
        inlines(n, out, styles);
      }
    }
  }

  private Hyperlink link(Link l) {
    Hyperlink link = new Hyperlink(plain(l));
    link.getStyleClass().add("md-link");
    String dest = l.getDestination();
    if (dest.startsWith("#")) {
      link.setOnAction(e -> scrollTo(dest.substring(1)));
    } else {
      // Shown so the reader knows where it points, not opened: HeadScope goes to no network.
      link.setTooltip(new Tooltip(dest + "\nNot opened: HeadScope never goes to the network."));
    }
    return link;
  }

  private static Text text(String s, List<String> styles) {
    Text t = new Text(s);
    t.getStyleClass().add("md-text");
    t.getStyleClass().addAll(styles);
    return t;
  }

  private static List<String> with(List<String> styles, String s) {
    List<String> more = new ArrayList<>(styles);
    more.add(s);
    return more;
  }

  /** The text of a node and its children, without markers (a heading's anchor, a link's label). */
  static String plain(org.commonmark.node.Node n) {
    StringBuilder sb = new StringBuilder();
    for (org.commonmark.node.Node c = n.getFirstChild(); c != null; c = c.getNext()) {
      if (c instanceof org.commonmark.node.Text t) {
        sb.append(t.getLiteral());
      } else if (c instanceof Code code) {
        sb.append(code.getLiteral());
      } else if (c instanceof SoftLineBreak || c instanceof HardLineBreak) {
        sb.append(' ');
      } else {
        sb.append(plain(c));
      }
    }
    return sb.toString();
  }
}
