package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.analysis.circuits.Ablation;
import io.headscope.analysis.circuits.CircuitEdge;
import io.headscope.analysis.circuits.EdgeScores;
import io.headscope.analysis.circuits.Faithfulness;
import io.headscope.app.gui.circuits.CircuitsViewModel;
import io.headscope.app.gui.exec.DirectWorker;
import io.headscope.app.gui.export.Exports;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.render.figure.Figure;
import io.headscope.app.render.figure.FigureFile;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The Circuits screen's files read back: the edge CSV has {@code headscope edges}'s columns and every edge's
 * score as the service gave it (to the six significant digits the CSV writes), the faithfulness CSV the curve's
 * points, the SVG figure parses as XML with one line per drawn edge (dashed where the score is positive), the PNG
 * is an image of the figure's size, and an unwritable path is one line with nothing left behind.
 */
class CircuitsExportTest {
  @TempDir static Path dir;
  static CircuitsViewModel vm;

  @BeforeAll
  static void run() {
    Path tiny = TinyBert.create(2, 3, 7).writeTo(dir.resolve("tiny")).config().getParent();
    MainViewModel main = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    main.textAProperty().set(CircuitsViewModelTest.CLEAN);
    main.loadModel(tiny.toString());
    main.analyse();
    vm = new CircuitsViewModel(main.session());
    vm.corruptedProperty().set(CircuitsViewModelTest.CORRUPTED);
    vm.targetProperty().set("she");
    vm.contrastProperty().set("he");
    vm.ablationProperty().set(Ablation.CORRUPTED);
    vm.run();
    assertThat(vm.resultProperty().get()).as(vm.statusProperty().get()).isNotNull();
  }

  /** {@code %.6g} rounds to six significant digits: within half a unit of the sixth, relative. */
  private static void sixDigits(double read, double want) {
    assertThat(Math.abs(read - want)).isLessThanOrEqualTo(5e-6 * Math.abs(want) + Double.MIN_NORMAL);
  }

  @Test
  void theEdgeCsvHoldsEveryEdgesScoreAsTheServiceGaveItLargestFirst() throws Exception {
    CircuitsViewModel.Result r = vm.resultProperty().get();
    Path csv = dir.resolve("edges.csv");
    Exports.edgeScoresCsv(r.scores(), csv);
    List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
    assertThat(lines.get(0)).isEqualTo("sender,receiver,input,score");
    EdgeScores s = r.scores();
    assertThat(lines).hasSize(s.edges().size() + 1);
    Map<String, Integer> byLabel = new HashMap<>();
    for (int i = 0; i < s.edges().size(); i++) {
      byLabel.put(s.edges().get(i).label(), i);
    }
    var m = r.analysis().graph();
    double previous = Double.POSITIVE_INFINITY;
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (String line : lines.subList(1, lines.size())) {
      String[] f = line.split(",");
      assertThat(f).hasSize(4);
      // the row's nodes read back as an edge of this model (the parser the CLI's --edges uses)
      String receiver = f[2].equals("q") || f[2].equals("k") || f[2].equals("v") ? f[1] + ":" + f[2] : f[1];
      CircuitEdge e = CircuitEdge.parse(f[0] + "->" + receiver, m.layers(), m.heads());
      assertThat(e.input().label()).isEqualTo(f[2]);
      Integer i = byLabel.get(e.label());
      assertThat(i).as(line).isNotNull();
      assertThat(seen.add(e.label())).as("each edge once").isTrue();
      double read = Double.parseDouble(f[3]);
      sixDigits(read, s.score(i));
      assertThat(Math.abs(s.score(i))).isLessThanOrEqualTo(previous);
      previous = Math.abs(s.score(i));
    }
  }

  @Test
  void theFaithfulnessCsvHoldsTheCurvesPoints() throws Exception {
    Faithfulness f = vm.resultProperty().get().faithfulness();
    Path csv = dir.resolve("faithfulness.csv");
    Exports.faithfulnessCsv(f, csv);
    List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
    assertThat(lines.get(0)).isEqualTo("edges,metric,kept");
    assertThat(lines).hasSize(f.points().size() + 1);
    for (int k = 0; k < f.points().size(); k++) {
      String[] x = lines.get(k + 1).split(",");
      Faithfulness.Point p = f.points().get(k);
      assertThat(Integer.parseInt(x[0])).isEqualTo(p.edges());
      sixDigits(Double.parseDouble(x[1]), p.metric());
      sixDigits(Double.parseDouble(x[2]), p.kept());
    }
  }

  @Test
  void theSvgFigureHasOneLinePerDrawnEdgeAndThePngIsItsPicture() throws Exception {
    vm.topProperty().set(12);
    List<Integer> shown = vm.shownProperty().get();
    assertThat(shown).hasSize(12);
    Figure fig = vm.figure();
    Path svg = dir.resolve("circuit.svg");
    FigureFile.write(fig, svg, FigureFile.Format.SVG, 1);
    DocumentBuilderFactory dbf = DocumentBuilderFactory.newInstance();
    dbf.setNamespaceAware(true);
    dbf.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    Document doc = dbf.newDocumentBuilder().parse(svg.toFile());
    assertThat(doc.getDocumentElement().getLocalName()).isEqualTo("svg");
    NodeList lines = doc.getElementsByTagNameNS("*", "line");
    assertThat(lines.getLength()).isEqualTo(shown.size());
    EdgeScores s = vm.resultProperty().get().scores();
    long positive = shown.stream().filter(i -> s.score(i) > 0).count();
    int dashed = 0;
    for (int k = 0; k < lines.getLength(); k++) {
      if (!((Element) lines.item(k)).getAttribute("stroke-dasharray").isEmpty()) {
        dashed++;
      }
    }
    assertThat(dashed).isEqualTo(positive);
    String text = Files.readString(svg);
    assertThat(text).contains("corrupted ablation").contains("top 12 of " + s.edges().size() + " edges by |EAP|");

    vm.thresholdProperty().set(Double.POSITIVE_INFINITY);
    Path none = dir.resolve("none.svg");
    FigureFile.write(vm.figure(), none, FigureFile.Format.SVG, 1);
    assertThat(DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(none.toFile())
        .getElementsByTagName("line").getLength()).isZero();
    vm.thresholdProperty().set(0);

    Path png = dir.resolve("circuit.png");
    FigureFile.write(fig, png, FigureFile.Format.PNG, 2);
    BufferedImage img = ImageIO.read(new ByteArrayInputStream(Files.readAllBytes(png)));
    assertThat(img.getWidth()).isEqualTo((int) Math.ceil(fig.width() * 2));
    assertThat(img.getHeight()).isEqualTo((int) Math.ceil(fig.height() * 2));
  }

  @Test
  void anUnwritablePathIsOneLineAndLeavesNothingBehind() throws Exception {
    Path blocker = dir.resolve("blocker");
    Files.writeString(blocker, "a file, not a folder");
    Path target = blocker.resolve("edges.csv");
    assertThatThrownBy(() -> Exports.edgeScoresCsv(vm.resultProperty().get().scores(), target))
        .isInstanceOf(HeadScopeException.class)
        .satisfies(e -> assertThat(e.getMessage()).startsWith("Cannot write").doesNotContain("\n"));
    Path missing = dir.resolve("no-such-folder").resolve("f.csv");
    assertThatThrownBy(() -> Exports.faithfulnessCsv(vm.resultProperty().get().faithfulness(), missing))
        .isInstanceOf(HeadScopeException.class)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    assertThat(Files.exists(dir.resolve("no-such-folder"))).isFalse();
    try (var files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith(".") || n.contains("tmp"));
    }
    assertThatThrownBy(() -> Exports.edgeScoresCsv(null, dir.resolve("x.csv")))
        .hasMessageStartingWith("Run the edge scores first");
  }
}
