package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.analysis.heads.HeadPattern;
import io.headscope.app.render.CategoryColors;
import io.headscope.app.render.Palette;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.Head;
import io.headscope.model.store.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
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
      int n = a.length;
      assertThat(head.getWidth()).isEqualTo(100 + n * 10 + 10);
      // the centre of cell (row 2, col 1) of the map: label margin 100, 10 px per cell
      int rgb = head.getRGB(100 + 1 * 10 + 5, 100 + 2 * 10 + 5) & 0xFFFFFF;
      assertThat(rgb).isEqualTo(Palette.argb(a[2][1], max) & 0xFFFFFF);
    }
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
      // 2 heads a layer: 96 px thumbnails in 110 px cells, 34 px of layer labels, 20 px of head labels
      for (var s : scores) {
        int x = 34 + s.head().head() * 110 + 1;
        int y = 20 + s.head().layer() * 122 + 1;
        assertThat(grid.getRGB(x, y) & 0xFFFFFF).as("frame of %s", s.head())
            .isEqualTo(CategoryColors.rgb(s.category()));
      }
      // the legend's first swatch (vertical) sits under the last layer
      assertThat(grid.getRGB(12, grid.getHeight() - 26 + 4 + 8) & 0xFFFFFF)
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
  }

  @Test
  void aPictureTooLargeToDrawIsScaledDownBeforeDrawingWithAWarning() throws Exception {
    io.headscope.model.BertConfig c = new io.headscope.model.BertConfig(TinyBert.VOCAB.size(), 8, 1, 2, 16, "gelu",
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
}
