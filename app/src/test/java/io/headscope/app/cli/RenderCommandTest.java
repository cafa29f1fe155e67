package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.analysis.heads.HeadPattern;
import io.headscope.app.render.CategoryColors;
import io.headscope.app.render.HeadMatrix;
import io.headscope.app.render.MapsShown;
import io.headscope.app.render.figure.Caption;
import io.headscope.app.render.figure.GridFigure;
import io.headscope.app.render.figure.HeadFigure;
import io.headscope.app.render.Palette;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code headscope render} without any display: the PNGs exist and show the model's numbers. */
class RenderCommandTest {
  @TempDir static Path dir;
  static Path tiny;

  @BeforeAll
  static void model() {
    System.setProperty("java.awt.headless", "true");
    tiny = TinyBert.create(2, 2, 5).writeTo(dir.resolve("tiny")).config().getParent();
  }

  @Test
  void writesTheGridAndTheHeadWithOnePaletteColourPerCell() throws Exception {
    Path out = dir.resolve("out");
    int code = HeadScopeCli.run("render", "--model", tiny.toString(), "--text", "the cat sat .",
        "--head", "2-1", "--cell", "10", "--out", out.toString());
    assertThat(code).isZero();
    assertThat(out.resolve("grid.png")).exists();
    BufferedImage head = ImageIO.read(out.resolve("head-2-1.png").toFile());
    try (BertModel m = BertModel.load(new ModelRepository(dir.resolve("cache")).folder(tiny))) {
      AttentionTrace t = m.trace(m.encode("the cat sat .", null));
      float[][] a = t.map(new Head(1, 0));
      float max = 0;
      for (float[] row : a) {
        for (float v : row) {
          max = Math.max(max, v);
        }
      }
      HeadFigure f = HeadFigure.layout(HeadMatrix.of(t, new Head(1, 0), HeadMatrix.Display.WEIGHTS,
          HeadMatrix.PairFilter.ALL), Caption.intact(m.name(), "the cat sat ."), 10);
      // every cell's centre has the palette's colour of the model's value, 10 px a cell
      for (int i = 0; i < a.length; i++) {
        for (int j = 0; j < a.length; j++) {
          int rgb = head.getRGB((int) (f.mapX + j * 10 + 5), (int) (f.mapY + i * 10 + 5)) & 0xFFFFFF;
          assertThat(rgb).as("cell %d,%d", i, j).isEqualTo(Palette.argb(a[i][j], max) & 0xFFFFFF);
        }
      }
    }
  }

  @Test
  void plainFiguresLeaveTheTitleBlockOutAndWriteItBesideAsText() throws Exception {
    Path full = dir.resolve("full");
    Path plain = dir.resolve("plain");
    String[] args = {"render", "--model", tiny.toString(), "--text", "the cat sat .", "--head", "2-1", "--cell", "10"};
    assertThat(HeadScopeCli.run(concat(args, "--out", full.toString()))).isZero();
    assertThat(HeadScopeCli.run(concat(args, "--out", plain.toString(), "--plain"))).isZero();
    for (String name : List.of("grid", "head-2-1")) {
      BufferedImage a = ImageIO.read(full.resolve(name + ".png").toFile());
      BufferedImage b = ImageIO.read(plain.resolve(name + ".png").toFile());
      assertThat(b.getHeight()).as(name).isLessThan(a.getHeight());
      assertThat(b.getWidth()).isEqualTo(a.getWidth());
      // the bottom rows (the map, the scale) are the same pixels
      int cut = a.getHeight() - b.getHeight();
      for (int x = 0; x < a.getWidth(); x++) {
        assertThat(b.getRGB(x, b.getHeight() - 20)).isEqualTo(a.getRGB(x, a.getHeight() - 20));
      }
      assertThat(cut).isPositive();
      String caption = Files.readString(plain.resolve(name + ".txt"));
      assertThat(caption).contains("Input: \u201cthe cat sat .\u201d").endsWith("\n");
      if (name.equals("grid")) {
        // render classifies with the learned model (HeadClassifier's default): the caption says so (issue 40)
        assertThat(HeadClassifier.Method.DEFAULT).isEqualTo(HeadClassifier.Method.LEARNED);
        assertThat(caption).contains("by HeadScope's learned model").doesNotContain("rule");
      }
      assertThat(full.resolve(name + ".txt")).doesNotExist();
    }
  }

  private static String[] concat(String[] a, String... b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  @Test
  void theGridFramesEachHeadInItsCategorysColourWithALegendUnderneath() throws Exception {
    Path out = dir.resolve("frames");
    assertThat(HeadScopeCli.run("render", "--model", tiny.toString(), "--text", "the cat sat on the mat .",
        "--out", out.toString())).isZero();
    BufferedImage grid = ImageIO.read(out.resolve("grid.png").toFile());
    try (BertModel m = BertModel.load(new ModelRepository(dir.resolve("cache")).folder(tiny))) {
      AttentionTrace t = m.trace(m.encode("the cat sat on the mat .", null));
      var scores = new HeadClassifier().classifyAll(t);
      // 2 heads a layer: 96 px thumbnails; the frame's corner pixel has the category's colour
      var geo = GridFigure.geometry(t, MapsShown.INTACT, GridFigure.Frames.of(HeadClassifier.Method.LEARNED, scores, 2),
          Caption.intact(m.name(), "the cat sat on the mat ."), 96);
      for (var s : scores) {
        assertThat(grid.getRGB((int) geo.x(s.head()) + 1, (int) geo.y(s.head()) + 1) & 0xFFFFFF)
            .as("frame of %s", s.head()).isEqualTo(CategoryColors.rgb(s.category()));
      }
      // the legend's first swatch (vertical) sits under the last layer
      assertThat(grid.getRGB((int) geo.left() + 6, (int) geo.legendY(2) + 6) & 0xFFFFFF)
          .isEqualTo(CategoryColors.rgb(HeadPattern.VERTICAL));
    }
  }

  @Test
  void refusesToOverwriteWithoutForceAndNamesTheFile() throws Exception {
    Path out = dir.resolve("twice");
    String[] args = {"render", "--model", tiny.toString(), "--text", "the dog .", "--out", out.toString()};
    assertThat(HeadScopeCli.run(args)).isZero();
    long before = Files.getLastModifiedTime(out.resolve("grid.png")).toMillis();
    assertThat(HeadScopeCli.run(args)).isEqualTo(1);
    assertThat(Files.getLastModifiedTime(out.resolve("grid.png")).toMillis()).isEqualTo(before);
    // a head the model does not have is a bad option value: a command-line error, as for --disable
    assertThat(HeadScopeCli.run("render", "--model", tiny.toString(), "--text", "the dog .", "--head", "9-1",
        "--out", dir.resolve("bad").toString())).isEqualTo(2);
    assertThat(dir.resolve("bad")).doesNotExist();
    // --out names a folder: a file name there would become a folder called grid.png with the figures inside
    CliHarness.Result r = CliHarness.run("render", "--model", tiny.toString(), "--text", "the dog .", "--out",
        dir.resolve("grid.png").toString());
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err().strip()).contains("is a folder for the figures").doesNotContain("\n");
    assertThat(dir.resolve("grid.png")).doesNotExist();
  }

  @Test
  void aPictureTooLargeToDrawIsScaledDownBeforeDrawingWithAWarning() throws Exception {
    io.headscope.model.core.BertConfig c = new io.headscope.model.core.BertConfig(TinyBert.VOCAB.size(), 8, 1, 2, 16, "gelu",
        512, 2, 1e-12, java.util.List.of());
    Path long512 = TinyBert.create(c, 4).writeTo(dir.resolve("long")).config().getParent();
    Path out = dir.resolve("big");
    CliHarness.Result r = CliHarness.run("render", "--model", long512.toString(),
        "--text", "the cat sat . ".repeat(60), "--head", "1-1", "--cell", "64", "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.err()).contains("would draw").contains("instead");
    java.awt.image.BufferedImage img = javax.imageio.ImageIO.read(out.resolve("head-1-1.png").toFile());
    assertThat(img.getWidth()).isLessThan(RenderCommand.MAX_SIDE + 400);
  }

  @Test
  void svgFiguresParseWithTheirTitleAndScaleAndAPngAtTwiceTheScaleHasTwiceThePixels() throws Exception {
    Path svg = dir.resolve("svg");
    assertThat(HeadScopeCli.run("render", "--model", tiny.toString(), "--text", "the cat & the <dog> .",
        "--head", "1-2", "--format", "svg", "--out", svg.toString())).isZero();
    for (String f : new String[] {"grid.svg", "head-1-2.svg"}) {
      var doc = javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(svg.resolve(f).toFile());
      String title = doc.getElementsByTagName("title").item(0).getTextContent();
      assertThat(title).isNotBlank();
      String text = doc.getDocumentElement().getTextContent();
      assertThat(text).contains("the cat & the <dog> .");
    }
    var head = javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder()
        .parse(svg.resolve("head-1-2.svg").toFile());
    assertThat(head.getElementsByTagName("title").item(0).getTextContent()).contains("head 1-2 (layer 1, head 2)");
    var texts = head.getElementsByTagName("text");
    java.util.List<String> all = new java.util.ArrayList<>();
    for (int i = 0; i < texts.getLength(); i++) {
      all.add(texts.item(i).getTextContent());
    }
    assertThat(all).contains("0", "attention weight");

    Path one = dir.resolve("scale1");
    Path two = dir.resolve("scale2");
    assertThat(HeadScopeCli.run("render", "--model", tiny.toString(), "--text", "the cat .", "--head", "1-1",
        "--out", one.toString())).isZero();
    assertThat(HeadScopeCli.run("render", "--model", tiny.toString(), "--text", "the cat .", "--head", "1-1",
        "--scale", "2", "--out", two.toString())).isZero();
    var a = ImageIO.read(one.resolve("head-1-1.png").toFile());
    var b = ImageIO.read(two.resolve("head-1-1.png").toFile());
    assertThat(Math.abs(b.getWidth() - 2 * a.getWidth())).isLessThanOrEqualTo(1);
    assertThat(Math.abs(b.getHeight() - 2 * a.getHeight())).isLessThanOrEqualTo(1);
    assertThat(CliHarness.run("render", "--model", tiny.toString(), "--text", "the cat .", "--format", "svg",
        "--scale", "2", "--out", dir.resolve("bad2").toString()).exit()).isEqualTo(2);
    assertThat(CliHarness.run("render", "--model", tiny.toString(), "--text", "the cat .", "--format", "pdf",
        "--out", dir.resolve("bad3").toString()).exit()).isEqualTo(2);
  }
}
