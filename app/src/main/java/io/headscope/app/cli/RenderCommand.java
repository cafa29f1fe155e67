package io.headscope.app.cli;

import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.analysis.heads.HeadScore;
import io.headscope.app.render.HeadMatrix;
import io.headscope.app.render.Java2DRenderer;
import io.headscope.app.render.PngFiles;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.Head;
import io.headscope.model.HeadMask;
import io.headscope.model.HeadScopeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "render", mixinStandardHelpOptions = true,
    description = "The app's pictures without a window: grid.png (every head, framed in its Kovaleva category's "
        + "colour, with the legend) and head-L-H.png for each --head, drawn with Java2D (works headless).")
final class RenderCommand implements Callable<Integer> {
  @Mixin TextOptions sentence;

  @Option(names = "--out", required = true, paramLabel = "DIR", description = "Folder for the PNGs (created if missing).")
  Path out;

  @Option(names = "--head", paramLabel = "L-H", defaultValue = "1-1",
      description = "Heads to draw large, 1-based, comma-separated (default 1-1).")
  String heads;

  @Option(names = "--norms", description = "Draw the large heads as norm-weighted attention (Kobayashi) instead of weights.")
  boolean norms;

  @Option(names = "--disable", paramLabel = "HEADS", description = "Heads shown switched off in the grid, e.g. 5-4,7.")
  String disable;

  @Option(names = "--cell", paramLabel = "PX", defaultValue = "18", description = "Pixels per cell of a large head (default 18).")
  int cell;

  @Option(names = "--force", description = "Overwrite existing PNGs.")
  boolean force;

  @Mixin ModelOptions model;

  /** The largest side of a head's picture: 8192 pixels (256 MB as RGBA). */
  static final int MAX_SIDE = 8192;

  @Override
  public Integer call() {
    sentence.check();
    if (cell < 1 || cell > 64) {
      throw new UsageException("--cell must be between 1 and 64 pixels.");
    }
    if (Files.exists(out) && !Files.isDirectory(out)) {
      throw new HeadScopeException(out + " is a file: --out needs a folder.");
    }
    try (BertModel m = model.open()) {
      int layers = m.config().numHiddenLayers();
      int h = m.config().numAttentionHeads();
      Set<Head> large = UsageException.heads("--head", heads, m.config());
      HeadMask mask = HeadMask.of(UsageException.heads("--disable", disable, m.config()), HeadMask.Mode.ZERO);
      AttentionTrace t = m.trace(m.encode(sentence.text, sentence.pair));
      Warnings.truncation(t.encoding());
      int n = t.tokens().size();
      int drawn = cell;
      if ((long) n * cell > MAX_SIDE) {
        // checked before anything is drawn: a 512-token map at 64 px a cell would need 4 GB
        drawn = Math.max(1, MAX_SIDE / n);
        System.err.printf(java.util.Locale.ROOT, "headscope: warning: --cell %d would draw %d pixels a side for %d "
            + "tokens; drawing %d pixels a cell (%d pixels) instead.%n", cell, (long) n * cell, n, drawn, n * drawn);
      }
      List<Path> files = new ArrayList<>();
      files.add(out.resolve("grid.png"));
      for (Head head : large) {
        files.add(out.resolve("head-" + head + (norms ? "-norms" : "") + ".png"));
      }
      for (Path f : files) {
        if (Files.exists(f) && !force) {
          throw new HeadScopeException(f + " exists: add --force to overwrite it.");
        }
      }
      Files.createDirectories(out);
      int thumb = Math.max(24, Math.min(96, 1152 / h));
      List<HeadScore> scores = new HeadClassifier().classifyAll(t);
      PngFiles.write(Java2DRenderer.grid(t, mask, thumb, hd -> scores.get(hd.layer() * h + hd.head()).category()),
          files.get(0));
      int k = 1;
      for (Head head : large) {
        HeadMatrix hm = HeadMatrix.of(t, head, norms ? HeadMatrix.Display.NORMS : HeadMatrix.Display.WEIGHTS,
            HeadMatrix.PairFilter.ALL);
        PngFiles.write(Java2DRenderer.head(hm, drawn), files.get(k++));
      }
      files.forEach(f -> System.err.println("headscope: wrote " + f));
    } catch (java.io.IOException e) {
      throw new HeadScopeException("Cannot create " + out + ": " + e.getMessage(), e);
    }
    return 0;
  }
}
