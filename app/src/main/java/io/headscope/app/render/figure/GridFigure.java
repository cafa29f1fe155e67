package io.headscope.app.render.figure;

import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.analysis.heads.HeadPattern;
import io.headscope.analysis.heads.HeadScore;
import io.headscope.analysis.heads.LearnedRule;
import io.headscope.analysis.linguistics.WordAttention;
import io.headscope.app.render.CategoryColors;
import io.headscope.app.render.MapsShown;
import io.headscope.app.render.Palette;
import io.headscope.app.render.UiColor;
import io.headscope.model.AttentionTrace;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import java.util.List;
import java.util.function.Function;

/**
 * Every head at a glance, for a paper: layers down, heads across, each map on its own scale (pooled to
 * 128 cells a side for long inputs), framed in its Kovaleva category's colour with the legend and the
 * counts; switched-off heads greyed and crossed; the maps intact, as run, or as run − intact.
 */
public final class GridFigure {
  private static final double LEFT = 34;
  private static final double GAP = 16;
  private static final int POOL = 128;

  private GridFigure() {}

  /** The grey of a head the classifier is unsure of, in the grid and in the legend (as the window's dashed grey frame). */
  static final int UNCERTAIN_RGB = 0xCCCCCC;

  /**
   * What frames the thumbnails: the classifier that decided the categories (named in the caption, so a paper's
   * figure never credits the rule with the learned model's colours) and each head's score from it.
   *
   * @param method the classifier that produced the scores
   * @param score each head's score; its {@link HeadScore#uncertain()} heads are framed grey and counted as uncertain
   */
  public record Frames(HeadClassifier.Method method, Function<Head, HeadScore> score) {
    /** Layer-major scores of a model with {@code heads} heads a layer, as {@code HeadClassifier.classifyAll} gives them. */
    public static Frames of(HeadClassifier.Method method, List<HeadScore> scores, int heads) {
      List<HeadScore> copy = List.copyOf(scores);
      return new Frames(method, h -> copy.get(h.layer() * heads + h.head()));
    }

    /** The caption's words for the frames: which classifier, and what grey means. */
    public String line() {
      return method == HeadClassifier.Method.LEARNED
          ? String.format(java.util.Locale.ROOT, "frame: Kovaleva category by HeadScope's learned model (grey: "
              + "uncertain, its top probability under %.2f)", LearnedRule.UNCERTAIN_BELOW)
          : "frame: Kovaleva category by HeadScope's threshold rule";
    }

    /** The head's category as framed, or null where the classifier is unsure. */
    HeadPattern framed(Head h) {
      HeadScore s = score.apply(h);
      return s.uncertain() ? null : s.category();
    }
  }

  /** Where each thumbnail's frame is (figure units): its top-left corner and side. */
  public record Geometry(double top, double left, double cell) {
    public double x(Head h) {
      return left + LEFT + h.head() * (cell + 4);
    }

    public double y(Head h) {
      return top + h.layer() * (cell + GAP);
    }

    /** The top of the legend's swatches under {@code layers} layers. */
    public double legendY(int layers) {
      return top + layers * (cell + GAP) + 8;
    }
  }

  private static Header header(AttentionTrace intact, MapsShown shown, boolean words, Frames frames,
      Caption caption, double thumb) {
    double gridW = LEFT + intact.heads() * (thumb + 6 + 4);
    String what = what(shown) + (words ? ", word-level (Clark: sum to a word, mean from it)" : "");
    List<String> notes = frames != null ? List.of(what + "; " + frames.line() + " · "
        + caption.mapsLine()) : List.of(what + " · " + caption.mapsLine());
    return Header.of(caption.model() + " · all " + intact.layers() * intact.heads() + " heads", notes, caption.input(),
        Math.max(gridW + 2 * Header.MARGIN, 560));
  }

  /** The legend's width with every count at its widest, so no count runs off a small model's figure. */
  private static double legendWidth(Frames frames, int total) {
    if (frames == null) {
      return 0;
    }
    String n = " " + total;
    double w = 16 + Fonts.width(HeadPattern.UNCERTAIN_LABEL + n, 11, false);
    for (HeadPattern p : HeadPattern.values()) {
      w += 16 + Fonts.width(p.label() + n, 11, false) + 14;
    }
    return w;
  }

  private static String what(MapsShown shown) {
    return switch (shown) {
      case INTACT -> "attention maps, each on its own scale";
      case AS_RUN -> "attention maps as run, each on its own scale";
      case DIFFERENCE -> "as run − intact, each on its own diverging scale (red less, blue more)";
    };
  }

  public static Geometry geometry(AttentionTrace intact, MapsShown shown, Frames frames, Caption caption,
      double thumb) {
    return new Geometry(header(intact, shown, false, frames, caption, thumb).height() + 16, Header.MARGIN, thumb + 6);
  }

  /**
   * @param intact the intact trace
   * @param asRun the trace with {@code mask} applied (the same as intact when nothing is off)
   * @param frames the classifier's scores that frame each head, or null for no frames and no legend
   */
  public static Figure of(AttentionTrace intact, AttentionTrace asRun, MapsShown shown, HeadMask mask,
      Frames frames, Caption caption, double thumb) {
    return of(intact, asRun, shown, false, mask, frames, caption, thumb);
  }

  /** As above; with {@code words} each map is first converted to words (Clark's conversion, as the app's switch). */
  public static Figure of(AttentionTrace intact, AttentionTrace asRun, MapsShown shown, boolean words, HeadMask mask,
      Frames frames, Caption caption, double thumb) {
    WordAttention.Words w = words ? WordAttention.of(intact.tokens()) : null;
    java.util.function.UnaryOperator<float[][]> unit = w == null ? m -> m : w::map;
    int layers = intact.layers();
    int heads = intact.heads();
    double cell = thumb + 6;
    double gridW = LEFT + heads * (cell + 4);
    String what = what(shown);
    Header header = header(intact, shown, words, frames, caption, thumb);
    Geometry geo = new Geometry(header.height() + 16, Header.MARGIN, cell);
    double top = geo.top();
    double legend = frames == null ? 0 : 30;
    double width = Math.max(Math.max(Math.max(gridW, legendWidth(frames, layers * heads)) + 2 * Header.MARGIN, 560),
        header.width());
    double height = top + layers * (cell + GAP) + legend + Header.MARGIN;
    String title = caption.model() + ": all heads (" + shown + ")";
    return new Figure(title, what, width, height, s -> {
      header.draw(s);
      double x0 = Header.MARGIN;
      for (int h = 0; h < heads; h++) {
        s.text("h" + (h + 1), x0 + LEFT + h * (cell + 4) + cell / 2, top - 4, 10, false, 0x555555, Surface.Anchor.MIDDLE, 0);
      }
      int[] counts = new int[HeadPattern.values().length];
      int uncertain = 0;
      for (int l = 0; l < layers; l++) {
        double y = top + l * (cell + GAP);
        s.text("L" + (l + 1), x0, y + cell / 2 + 4, 10, false, 0x555555, Surface.Anchor.START, 0);
        for (int h = 0; h < heads; h++) {
          Head head = new Head(l, h);
          double x = geo.x(head);
          HeadPattern p = frames == null ? null : frames.framed(head);
          if (p != null) {
            counts[p.ordinal()]++;
          } else if (frames != null) {
            uncertain++;
          }
          s.fill(x, y, cell, cell, p == null ? UNCERTAIN_RGB : CategoryColors.rgb(p));
          int[] px;
          float[][] m;
          if (shown == MapsShown.DIFFERENCE) {
            m = Palette.pooledSigned(unit.apply(Palette.difference(asRun.map(head), intact.map(head))), POOL);
            px = Palette.divergingPixels(m, Palette.maxAbs(m));
          } else {
            m = Palette.pooled(unit.apply((shown == MapsShown.AS_RUN ? asRun : intact).map(head)), POOL);
            px = Palette.pixels(m, Palette.max(m));
          }
          boolean off = mask.isOff(head);
          s.cells(off ? Palette.dimmed(px) : px, m[0].length, m.length, x + 3, y + 3, thumb, thumb);
          if (off) {
            s.line(x + 3, y + 3, x + 3 + thumb, y + 3 + thumb, UiColor.OFF.rgb(), 1, 1.5);
            s.line(x + 3 + thumb, y + 3, x + 3, y + 3 + thumb, UiColor.OFF.rgb(), 1, 1.5);
          }
          s.text(head + (off ? " off" : ""), x + cell / 2, y + cell + 11, 9, off, off ? UiColor.OFF.rgb() : 0x000000,
              Surface.Anchor.MIDDLE, 0);
        }
      }
      if (frames != null) {
        double x = x0;
        double y = geo.legendY(layers);
        for (HeadPattern p : HeadPattern.values()) {
          s.fill(x, y, 12, 12, CategoryColors.rgb(p));
          String label = p.label() + " " + counts[p.ordinal()];
          s.text(label, x + 16, y + 10, 11, false, 0x000000, Surface.Anchor.START, 0);
          x += 16 + s.textWidth(label, 11, false) + 14;
        }
        // the learned model's unsure heads are counted too, so the legend adds up to every head
        if (frames.method() == HeadClassifier.Method.LEARNED || uncertain > 0) {
          s.fill(x, y, 12, 12, UNCERTAIN_RGB);
          s.text(HeadPattern.UNCERTAIN_LABEL + " " + uncertain, x + 16, y + 10, 11, false, 0x000000,
              Surface.Anchor.START, 0);
        }
      }
    }).headedBy(header);
  }
}
