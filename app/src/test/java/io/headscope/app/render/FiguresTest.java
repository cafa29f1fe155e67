package io.headscope.app.render;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.analysis.corpus.Corpus;
import io.headscope.analysis.corpus.CorpusAnalysis;
import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.app.render.figure.Caption;
import io.headscope.app.render.figure.CorpusFigure;
import io.headscope.app.render.figure.Figure;
import io.headscope.app.render.figure.FigureFile;
import io.headscope.app.render.figure.GridFigure;
import io.headscope.app.render.figure.HeadFigure;
import io.headscope.app.render.figure.LinesFigure;
import io.headscope.app.render.figure.MatrixFigure;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

/**
 * Every figure as SVG parses as XML and carries its title, its input and its colour scale's numbers;
 * PNG scale, odd text, size limits and unwritable files behave. Real traces of a tiny model.
 */
class FiguresTest {
  @TempDir static Path dir;
  static BertModel model;
  static AttentionTrace intact;
  static AttentionTrace asRun;
  static final String TEXT = "the cat & the <dog> said \"hi\" 😀 .";

  @BeforeAll
  static void load() {
    Path tiny = TinyBert.create(2, 3, 9).writeTo(dir.resolve("tiny")).config().getParent();
    model = BertModel.load(new ModelRepository(dir.resolve("cache")).folder(tiny));
    intact = model.trace(model.encode(TEXT, null));
    asRun = model.trace(TraceRequest.of(intact.encoding())
        .mask(HeadMask.of(Set.of(new Head(0, 1)), HeadMask.Mode.ZERO)).maps(AttentionTrace.Maps.AS_RUN)).get(0);
  }

  @AfterAll
  static void close() {
    model.close();
  }

  private static Document parse(Figure f) throws Exception {
    return DocumentBuilderFactory.newInstance().newDocumentBuilder()
        .parse(new ByteArrayInputStream(FigureFile.svg(f).getBytes(StandardCharsets.UTF_8)));
  }

  private static List<String> texts(Document d) {
    List<String> out = new ArrayList<>();
    var nodes = d.getElementsByTagName("text");
    for (int i = 0; i < nodes.getLength(); i++) {
      out.add(nodes.item(i).getTextContent());
    }
    return out;
  }

  @Test
  void theHeadFigureNamesItsHeadItsInputAndItsScaleAndADifferenceUsesTheDivergingScale() throws Exception {
    HeadMatrix m = HeadMatrix.of(intact, new Head(1, 2), HeadMatrix.Display.WEIGHTS, HeadMatrix.PairFilter.ALL);
    Document d = parse(HeadFigure.of(m, Caption.intact(model.name(), TEXT), 18));
    assertThat(d.getElementsByTagName("title").item(0).getTextContent()).contains("head 2-3 (layer 2, head 3)");
    List<String> t = texts(d);
    assertThat(String.join(" ", t)).contains(TEXT).contains("maps: intact model");
    assertThat(t).contains("0", String.format(java.util.Locale.ROOT, "%.3g", m.max()), "attention weight");
    assertThat(t).containsAll(m.colTokens());

    HeadMatrix diff = HeadMatrix.of(intact, asRun, MapsShown.DIFFERENCE, new Head(1, 0), HeadMatrix.Display.WEIGHTS,
        HeadMatrix.PairFilter.ALL);
    assertThat(diff.max()).isPositive();
    Caption c = new Caption(model.name(), TEXT, asRun.mask(), "difference as run − intact");
    List<String> dt = texts(parse(HeadFigure.of(diff, c, 18)));
    String end = String.format(java.util.Locale.ROOT, "%+.3g", diff.max());
    String start = String.format(java.util.Locale.ROOT, "%+.3g", -diff.max());
    assertThat(dt).contains(start, end);
    assertThat(String.join(" ", dt)).contains("with 1 head off (zero): 1-2");
  }

  @Test
  void theGridLinesMatrixAndCorpusFiguresParseWithTitlesAndScales() throws Exception {
    List<HeadMatrix> layer = new ArrayList<>();
    for (int h = 0; h < 3; h++) {
      layer.add(HeadMatrix.of(intact, new Head(1, h), HeadMatrix.Display.WEIGHTS, HeadMatrix.PairFilter.ALL));
    }
    Document lines = parse(LinesFigure.of(layer, Caption.intact(model.name(), TEXT)));
    assertThat(lines.getElementsByTagName("title").item(0).getTextContent()).contains("layer 2");
    assertThat(texts(lines)).contains("2-1", "2-2", "2-3");
    assertThat(lines.getElementsByTagName("line").getLength()).isPositive();

    var scores = new HeadClassifier().classifyAll(intact);
    Document grid = parse(GridFigure.of(intact, asRun, MapsShown.AS_RUN, asRun.mask(),
        GridFigure.Frames.of(HeadClassifier.Method.LEARNED, scores, 3), new Caption(model.name(), TEXT, asRun.mask(),
            "as run"), 40));
    assertThat(grid.getElementsByTagName("title").item(0).getTextContent()).contains("all heads (as run)");
    assertThat(texts(grid)).contains("1-2 off");

    double[][] v = {{0.5, -1.0, Double.NaN}, {0.25, 0, 2.0}};
    Document matrix = parse(MatrixFigure.of("Sweep: Δ log-prob", List.of("partial: 5 of 6 variants"), TEXT,
        List.of("L1", "L2"), List.of("h1", "h2", "h3"), v, true, "red lowered, blue raised", 36, true));
    assertThat(texts(matrix)).contains("-2.00", "+2.00", "0.50", "-1.00", "partial: 5 of 6 variants");

    var corpus = new CorpusAnalysis(model, new HeadClassifier(), 8).run(Corpus.of(TEXT, null),
        (done, total) -> { }, () -> false);
    Document cf = parse(CorpusFigure.of(corpus, "one line"));
    assertThat(cf.getElementsByTagName("title").item(0).getTextContent()).contains("one line");
    assertThat(texts(cf)).anyMatch(s -> s.startsWith("vertical "));
  }

  /**
   * Issue 40: the grid figure said "HeadScope's rule" over the learned model's colours and left the uncertain heads
   * out of the legend. The caption names the classifier that made the scores, and the legend's counts are the
   * scores' own (counted here by their shown label) and add up to every head, uncertain ones included.
   */
  @Test
  void theGridFiguresCaptionNamesItsClassifierAndTheLegendCountsEveryHeadIncludingUncertain() throws Exception {
    int total = intact.layers() * intact.heads();
    for (HeadClassifier.Method method : HeadClassifier.Method.values()) {
      List<io.headscope.analysis.heads.HeadScore> scores = new ArrayList<>(new HeadClassifier(method).classifyAll(intact));
      if (method == HeadClassifier.Method.LEARNED) {
        // two heads the model is unsure of (the tiny model's maps are all clear): framed grey, counted apart
        for (int i : new int[] {1, 4}) {
          var s = scores.get(i);
          scores.set(i, new io.headscope.analysis.heads.HeadScore(s.head(), s.category(), 0.4, s.vertical(),
              s.verticalFocus(), s.diagonal(), s.block(), s.heterogeneous(), s.topColumns(), s.dominantOffset(),
              s.stats(), s.features(), s.runnerUp(), s.runnerUpConfidence(), true));
        }
      }
      Figure f = GridFigure.of(intact, intact, MapsShown.INTACT, intact.mask(), GridFigure.Frames.of(method, scores,
          intact.heads()), Caption.intact(model.name(), TEXT), 40);
      assertThat(f.plain().caption()).as(method.name())
          .contains(method == HeadClassifier.Method.LEARNED ? "by HeadScope's learned model" : "by HeadScope's threshold rule")
          .doesNotContain(method == HeadClassifier.Method.LEARNED ? "rule" : "learned");
      java.util.Map<String, Integer> expected = new java.util.LinkedHashMap<>();
      for (var p : io.headscope.analysis.heads.HeadPattern.values()) {
        expected.put(p.label(), 0);
      }
      if (method == HeadClassifier.Method.LEARNED) {
        expected.put("uncertain", 0);
      }
      scores.forEach(s -> expected.merge(s.shownLabel(), 1, Integer::sum));
      java.util.Map<String, Integer> legend = new java.util.LinkedHashMap<>();
      for (String t : texts(parse(f))) {
        var m = java.util.regex.Pattern.compile("([a-z+]+) (\\d+)").matcher(t);
        if (m.matches() && expected.containsKey(m.group(1))) {
          legend.put(m.group(1), Integer.parseInt(m.group(2)));
        }
      }
      assertThat(legend).as(method.name()).isEqualTo(expected);
      assertThat(legend.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(total);
    }
  }

  @Test
  void aPlainFigureIsTheFullOneBelowItsTitleBlockPixelForPixelWithTheBlockAsItsCaption() throws Exception {
    List<HeadMatrix> layer = new ArrayList<>();
    for (int h = 0; h < 3; h++) {
      layer.add(HeadMatrix.of(intact, new Head(1, h), HeadMatrix.Display.WEIGHTS, HeadMatrix.PairFilter.ALL));
    }
    var scores = new HeadClassifier().classifyAll(intact);
    double[][] v = {{0.5, -1.0, Double.NaN}, {0.25, 0, 2.0}};
    List<Figure> figures = List.of(
        HeadFigure.of(layer.get(0), Caption.intact(model.name(), TEXT), 18),
        LinesFigure.of(layer, Caption.intact(model.name(), TEXT)),
        GridFigure.of(intact, asRun, MapsShown.AS_RUN, asRun.mask(), GridFigure.Frames.of(HeadClassifier.Method.LEARNED,
            scores, 3), new Caption(model.name(), TEXT, asRun.mask(), "as run"), 40),
        MatrixFigure.of("Sweep: Δ log-prob", List.of("each head off alone"), TEXT, List.of("L1", "L2"),
            List.of("h1", "h2", "h3"), v, true, "red lowered, blue raised", 36, true));
    for (Figure full : figures) {
      Figure plain = full.plain();
      double cut = full.height() - plain.height();
      assertThat(cut).as(full.title()).isPositive().isEqualTo(Math.rint(cut));
      BufferedImage a = FigureFile.png(full, 1);
      BufferedImage b = FigureFile.png(plain, 1);
      assertThat(b.getWidth()).isEqualTo(a.getWidth());
      int top = (int) cut;
      int margin = (int) (full.headerHeight() - cut); // the plain figure keeps this much above what follows
      int white = b.getRGB(0, 0);
      for (int y = 0; y < b.getHeight(); y++) {
        for (int x = 0; x < b.getWidth(); x++) {
          if (y < margin) {
            assertThat(b.getRGB(x, y)).as("%s: the margin (%d, %d) is blank", full.title(), x, y).isEqualTo(white);
          } else {
            assertThat(b.getRGB(x, y)).as("%s: pixel (%d, %d)", full.title(), x, y).isEqualTo(a.getRGB(x, y + top));
          }
        }
      }
      // the block is text beside the figure, and none of it is drawn in the plain SVG
      List<String> drawn = texts(parse(plain));
      String[] caption = full.caption().split("\n");
      assertThat(full.caption()).contains("Input:");
      for (String line : caption) {
        assertThat(drawn).as("%s: %s", full.title(), line).doesNotContain(line);
      }
      assertThat(texts(parse(full))).contains(caption);
    }
  }

  @Test
  void aPngAtTwiceTheScaleHasTwiceThePixelsAndTooLargeARequestIsRefusedBeforeDrawing() throws Exception {
    HeadMatrix m = HeadMatrix.of(intact, new Head(0, 0), HeadMatrix.Display.WEIGHTS, HeadMatrix.PairFilter.ALL);
    Figure f = HeadFigure.of(m, Caption.intact(model.name(), TEXT), 12);
    BufferedImage one = FigureFile.png(f, 1);
    BufferedImage two = FigureFile.png(f, 2);
    assertThat(two.getWidth()).isEqualTo((int) Math.ceil(f.width() * 2));
    assertThat(Math.abs(two.getWidth() - 2 * one.getWidth())).isLessThanOrEqualTo(1);
    assertThatThrownBy(() -> FigureFile.png(f, FigureFile.MAX_SIDE)).isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("limit");
  }

  @Test
  void anUnwritableFileFailsWithOneLineAndLeavesNothing() throws Exception {
    HeadMatrix m = HeadMatrix.of(intact, new Head(0, 0), HeadMatrix.Display.WEIGHTS, HeadMatrix.PairFilter.ALL);
    Figure f = HeadFigure.of(m, Caption.intact(model.name(), TEXT), 12);
    Path blocked = dir.resolve("not-a-folder");
    Files.writeString(blocked, "x");
    Path target = blocked.resolve("head.svg");
    assertThatThrownBy(() -> FigureFile.write(f, target, FigureFile.Format.SVG, 1)).isInstanceOf(HeadScopeException.class);
    assertThat(Files.readString(blocked)).isEqualTo("x");
    Path ok = dir.resolve("head.svg");
    FigureFile.write(f, ok, FigureFile.Format.of(ok), 1);
    assertThat(Files.readString(ok)).startsWith("<?xml");
    try (var list = Files.list(dir)) {
      assertThat(list.map(p -> p.getFileName().toString())).noneMatch(n -> n.contains(".part"));
    }
  }
}
