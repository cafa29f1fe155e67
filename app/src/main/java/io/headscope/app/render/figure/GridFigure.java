package io.headscope.app.render.figure;

import io.headscope.analysis.heads.HeadPattern;
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

  private static Header header(AttentionTrace intact, MapsShown shown, boolean categories, Caption caption,
      double thumb) {
    return header(intact, shown, false, categories, caption, thumb);
  }

  private static Header header(AttentionTrace intact, MapsShown shown, boolean words, boolean categories,
      Caption caption, double thumb) {
    double gridW = LEFT + intact.heads() * (thumb + 6 + 4);
    String what = what(shown) + (words ? ", word-level (Clark: sum to a word, mean from it)" : "");
    List<String> notes = categories ? List.of(what + "; frame: Kovaleva category (HeadScope's rule) · "
        + caption.mapsLine()) : List.of(what + " · " + caption.mapsLine());
    return Header.of(caption.model() + " · all " + intact.layers() * intact.heads() + " heads", notes, caption.input(),
        Math.max(gridW + 2 * Header.MARGIN, 560));
  }

  private static String what(MapsShown shown) {
    return switch (shown) {
      case INTACT -> "attention maps, each on its own scale";
      case AS_RUN -> "attention maps as run, each on its own scale";
      case DIFFERENCE -> "as run − intact, each on its own diverging scale (red less, blue more)";
    };
  }

  public static Geometry geometry(AttentionTrace intact, MapsShown shown, boolean categories, Caption caption,
      double thumb) {
    return new Geometry(header(intact, shown, categories, caption, thumb).height() + 16, Header.MARGIN, thumb + 6);
  }

  /**
   * @param intact the intact trace
   * @param asRun the trace with {@code mask} applied (the same as intact when nothing is off)
   * @param category each head's category, or null for no frames and no legend
   */
  public static Figure of(AttentionTrace intact, AttentionTrace asRun, MapsShown shown, HeadMask mask,
      Function<Head, HeadPattern> category, Caption caption, double thumb) {
    return of(intact, asRun, shown, false, mask, category, caption, thumb);
  }

  /** As above; with {@code words} each map is first converted to words (Clark's conversion, as the app's switch). */
  public static Figure of(AttentionTrace intact, AttentionTrace asRun, MapsShown shown, boolean words, HeadMask mask,
      Function<Head, HeadPattern> category, Caption caption, double thumb) {
    WordAttention.Words w = words ? WordAttention.of(intact.tokens()) : null;
    java.util.function.UnaryOperator<float[][]> unit = w == null ? m -> m : w::map;
    int layers = intact.layers();
    int heads = intact.heads();
    double cell = thumb + 6;
    double gridW = LEFT + heads * (cell + 4);
    String what = what(shown);
    Header header = header(intact, shown, words, category != null, caption, thumb);
    Geometry geo = geometry(intact, shown, category != null, caption, thumb);
    double top = geo.top();
    double legend = category == null ? 0 : 30;
    double width = Math.max(Math.max(gridW + 2 * Header.MARGIN, 560), header.width());
    double height = top + layers * (cell + GAP) + legend + Header.MARGIN;
    String title = caption.model() + ": all heads (" + shown + ")";
    return new Figure(title, what, width, height, s -> {
      header.draw(s);
      double x0 = Header.MARGIN;
      for (int h = 0; h < heads; h++) {
        s.text("h" + (h + 1), x0 + LEFT + h * (cell + 4) + cell / 2, top - 4, 10, false, 0x555555, Surface.Anchor.MIDDLE, 0);
      }
      int[] counts = new int[HeadPattern.values().length];
      for (int l = 0; l < layers; l++) {
        double y = top + l * (cell + GAP);
        s.text("L" + (l + 1), x0, y + cell / 2 + 4, 10, false, 0x555555, Surface.Anchor.START, 0);
        for (int h = 0; h < heads; h++) {
          Head head = new Head(l, h);
          double x = geo.x(head);
          HeadPattern p = category == null ? null : category.apply(head);
          if (p != null) {
            counts[p.ordinal()]++;
          }
          s.fill(x, y, cell, cell, p == null ? 0xCCCCCC : CategoryColors.rgb(p));
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
      if (category != null) {
        double x = x0;
        double y = geo.legendY(layers);
        for (HeadPattern p : HeadPattern.values()) {
          s.fill(x, y, 12, 12, CategoryColors.rgb(p));
          String label = p.label() + " " + counts[p.ordinal()];
          s.text(label, x + 16, y + 10, 11, false, 0x000000, Surface.Anchor.START, 0);
          x += 16 + s.textWidth(label, 11, false) + 14;
        }
      }
    }).headedBy(header);
  }
}
