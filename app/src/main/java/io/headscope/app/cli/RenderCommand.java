package io.headscope.app.cli;

import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.analysis.heads.HeadScore;
import io.headscope.app.render.HeadMatrix;
import io.headscope.app.render.MapsShown;
import io.headscope.app.render.figure.Caption;
import io.headscope.app.render.figure.Figure;
import io.headscope.app.render.figure.FigureFile;
import io.headscope.app.render.figure.GridFigure;
import io.headscope.app.render.figure.HeadFigure;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.store.AtomicOutput;
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
    description = "Figures for papers without a window: grid.png|svg (every head, framed in its Kovaleva "
        + "category's colour, with the legend) and head-L-H.png|svg for each --head, each with a title, the input "
        + "and a colour scale with its numbers; the app's exports are drawn by the same code (works headless).")
final class RenderCommand implements Callable<Integer> {
  @Mixin TextOptions sentence;

  @Option(names = "--out", required = true, paramLabel = "DIR", description = "Folder for the figures (created if missing).")
  Path out;

  @Option(names = "--head", paramLabel = "L-H", defaultValue = "1-1",
      description = "Heads to draw large, 1-based, comma-separated (default 1-1).")
  String heads;

  @Option(names = "--norms", description = "Draw the large heads as norm-weighted attention (Kobayashi) instead of weights.")
  boolean norms;

  @Option(names = "--disable", paramLabel = "HEADS", description = "Heads shown switched off in the grid, e.g. 5-4,7 (L7 or 7-* is all of layer 7) or a saved head set: @NAME.")
  String disable;

  @Option(names = "--cell", paramLabel = "PX", defaultValue = "18", description = "Pixels per cell of a large head (default 18).")
  int cell;

  @Option(names = "--force", description = "Overwrite existing files.")
  boolean force;

  @Option(names = "--format", paramLabel = "png|svg", defaultValue = "png",
      description = "png (default) or svg (vector: cells as rectangles, text as text).")
  String format;

  @Option(names = "--scale", paramLabel = "F", defaultValue = "1",
      description = "PNG only: pixels per figure unit (1 = 96 dpi; 3.125 = 300 dpi for print). Default 1.")
  double scale;

  @Option(names = "--plain", description = "Figures without a title, notes or input (a journal sets its own "
      + "caption); each caption is written beside its figure as text (grid.txt, head-5-4.txt).")
  boolean plain;

  @Mixin ModelOptions model;

  /** The largest side of a head's map, in pixels (a 512-token map at 16 pixels a cell at scale 1). */
  static final int MAX_SIDE = 8192;

  @Override
  public Integer call() {
    sentence.check();
    if (cell < 1 || cell > 64) {
      throw new UsageException("--cell must be between 1 and 64 pixels.");
    }
    FigureFile.Format fmt;
    try {
      fmt = FigureFile.Format.parse(format);
    } catch (HeadScopeException e) {
      throw new UsageException(e.getMessage());
    }
    if (!(scale > 0 && scale <= 8)) {
      throw new UsageException("--scale must be above 0 and at most 8 (3.125 gives 300 dpi).");
    }
    if (fmt == FigureFile.Format.SVG && scale != 1) {
      throw new UsageException("--scale is for PNG; an SVG has no pixels to scale.");
    }
    if (Files.exists(out) && !Files.isDirectory(out)) {
      throw new HeadScopeException(out + " is a file: --out needs a folder.");
    }
    String name = out.getFileName() == null ? "" : out.getFileName().toString().toLowerCase(java.util.Locale.ROOT);
    if (!Files.exists(out) && (name.endsWith(".png") || name.endsWith(".svg") || name.endsWith(".pdf"))) {
      // a folder called grid.png would be created, with the figures inside it
      throw new UsageException("--out is a folder for the figures (grid" + (fmt == FigureFile.Format.SVG ? ".svg" : ".png")
          + ", head-L-H...), not a file name: " + out.getFileName() + " looks like one.");
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
      if ((long) Math.ceil(n * cell * (fmt == FigureFile.Format.PNG ? scale : 1)) > MAX_SIDE) {
        // checked before anything is drawn: a 512-token map at 64 px a cell would need 4 GB
        drawn = Math.max(1, (int) (MAX_SIDE / (n * (fmt == FigureFile.Format.PNG ? scale : 1))));
        System.err.printf(java.util.Locale.ROOT, "headscope: warning: --cell %d would draw %d pixels a side for %d "
            + "tokens; drawing %d pixels a cell (%d pixels) instead.%n", cell, (long) n * cell, n, drawn, n * drawn);
      }
      String ext = "." + fmt.extension();
      List<Path> files = new ArrayList<>();
      files.add(out.resolve("grid" + ext));
      for (Head head : large) {
        files.add(out.resolve("head-" + head + (norms ? "-norms" : "") + ext));
      }
      int figures = files.size();
      if (plain) {
        for (int i = 0; i < figures; i++) {
          files.add(FigureFile.captionFile(files.get(i)));
        }
      }
      for (Path f : files) {
        if (Files.exists(f, java.nio.file.LinkOption.NOFOLLOW_LINKS) && !force) {
          throw new HeadScopeException(f + " exists: add --force to overwrite it.");
        }
      }
      Files.createDirectories(out);
      for (Path f : files) {
        AtomicOutput.check(f, force); // a link, a FIFO or a folder in any figure's place: refused before drawing
      }
      int thumb = Math.max(24, Math.min(96, 1152 / h));
      // a causal model's maps are drawn without categories (HeadClassifier.appliesTo)
      HeadClassifier classifier = new HeadClassifier();
      List<HeadScore> scores = HeadClassifier.appliesTo(m) ? classifier.classifyAll(t) : null;
      String input = sentence.pair == null ? sentence.text : sentence.text + " ‖ " + sentence.pair;
      // the grid greys the --disable heads; the maps are the intact model's (the categories describe them)
      Caption gridCaption = new Caption(m.name(), input, mask, "intact");
      // the figures are one set: all drawn, then all written, or none (AtomicOutput.writeSet)
      List<Figure> drawnFigures = new ArrayList<>();
      // uncertain heads: a grey frame, as in the app; the caption names the classifier
      drawnFigures.add(GridFigure.of(t, t, MapsShown.INTACT, mask,
          scores == null ? null : GridFigure.Frames.of(classifier.method(), scores, h), gridCaption, thumb));
      for (Head head : large) {
        HeadMatrix hm = HeadMatrix.of(t, head, norms ? HeadMatrix.Display.NORMS : HeadMatrix.Display.WEIGHTS,
            HeadMatrix.PairFilter.ALL);
        drawnFigures.add(HeadFigure.of(hm, Caption.intact(m.name(), input), drawn));
      }
      List<AtomicOutput.Member> set = new ArrayList<>();
      for (int i = 0; i < figures; i++) {
        Figure f = drawnFigures.get(i);
        set.add(new AtomicOutput.Member(files.get(i), FigureFile.content(plain ? f.plain() : f, fmt, scale)));
        if (plain) {
          byte[] caption = (f.caption() + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8);
          set.add(new AtomicOutput.Member(files.get(figures + i), o -> o.write(caption)));
        }
      }
      AtomicOutput.writeSet(set, force);
      files.forEach(f -> System.err.println("headscope: wrote " + f));
    } catch (java.io.IOException e) {
      throw new HeadScopeException("Cannot create " + out + ": " + e.getMessage(), e);
    }
    return 0;
  }
}
