package io.headscope.app.render.figure;

import io.headscope.analysis.distance.HeadMap;
import io.headscope.analysis.heads.HeadPattern;
import io.headscope.app.render.CategoryColors;
import io.headscope.app.render.ScatterFit;
import io.headscope.app.render.UiColor;
import io.headscope.model.core.Head;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * The head map for a paper: every head a point placed by classical MDS of the Jensen-Shannon
 * distances (Clark et al. 2019, Figure 6), coloured by its Kovaleva category on the current input and
 * labelled with its layer, with the category key under it.
 */
public final class HeadMapFigure {
  static final double PLOT = 560;
  static final double RADIUS = 7.5;

  private HeadMapFigure() {}

  /**
   * @param category each head's category on the current input, or null where none is known (grey)
   * @param input the current input as typed (named when the colours come from it)
   */
  public static Figure of(HeadMap map, Function<Head, HeadPattern> category, String input) {
    var d = map.distances();
    String over = d.inputs() == 1 && d.source().equals("text") ? "the current input"
        : String.format(Locale.ROOT, "%s, mean over %d inputs", d.source(), d.inputs());
    Header header = Header.of(d.model() + " · heads placed by how alike they attend", List.of(
        "classical MDS of the Jensen-Shannon distance sqrt(JS) between heads' attention rows (Clark et al. 2019)",
        String.format(Locale.ROOT, "distances: %s · the two axes carry %.0f%% of the variance", over,
            100 * map.layout().explained()),
        "point: a head, labelled with its layer · colour: its Kovaleva category on the current input"),
        input, PLOT + 2 * Header.MARGIN);
    double top = header.height() + 6;
    double width = Math.max(PLOT + 2 * Header.MARGIN, header.width());
    double plotX = (width - PLOT) / 2;
    double legendY = top + PLOT + 22;
    boolean grey = false;
    for (int i = 0; i < d.count(); i++) {
      grey |= category.apply(d.head(i)) == null;
    }
    final boolean anyGrey = grey;
    double height = legendY + 14 + (anyGrey ? 16 : 0) + Header.MARGIN;
    double[] xs = new double[d.count()];
    double[] ys = new double[d.count()];
    for (int i = 0; i < d.count(); i++) {
      xs[i] = map.x(d.head(i));
      ys[i] = map.y(d.head(i));
    }
    ScatterFit fit = ScatterFit.of(xs, ys, plotX, top, PLOT, PLOT, RADIUS + 4);
    return new Figure(d.model() + ": head map", "classical MDS of the Jensen-Shannon distances between "
        + d.count() + " heads, " + over, width, height, s -> {
          header.draw(s);
          s.stroke(plotX, top, PLOT, PLOT, 0xCCCCCC, 0.8);
          double[] px = new double[d.count()];
          double[] py = new double[d.count()];
          for (int i = 0; i < d.count(); i++) {
            px[i] = fit.px(xs[i]);
            py[i] = fit.py(ys[i]);
          }
          // where dots crowd, only the ones on top keep their layer number: numbers never run into each other
          boolean[] numbered = io.headscope.app.render.CrowdedLabels.labelled(px, py, 1.75 * RADIUS);
          for (int i = 0; i < d.count(); i++) {
            Head h = d.head(i);
            HeadPattern p = category.apply(h);
            int fill = p == null ? UiColor.UNKNOWN.rgb() : CategoryColors.rgb(p);
            s.dot(px[i], py[i], RADIUS, fill, 0x333333, 0.6);
            if (numbered[i]) {
              s.text(String.valueOf(h.layer() + 1), px[i], py[i] + 3, 8.5, true, 0x000000, Surface.Anchor.MIDDLE, 0);
            }
          }
          double x = plotX;
          for (HeadPattern p : HeadPattern.values()) {
            s.dot(x + 5, legendY - 4, 5, CategoryColors.rgb(p), 0x333333, 0.6);
            s.text(p.label(), x + 14, legendY, 10, false, 0x000000, Surface.Anchor.START, 0);
            x += 14 + s.textWidth(p.label(), 10, false) + 14;
          }
          if (anyGrey) {
            // grey is drawn, so it is named (on a line of its own): no category claimed
            s.dot(plotX + 5, legendY + 12, 5, UiColor.UNKNOWN.rgb(), 0x333333, 0.6);
            s.text(GREY_LABEL, plotX + 14, legendY + 16, 10, false, 0x000000, Surface.Anchor.START, 0);
          }
        }).headedBy(header);
  }

  /** The legend's name for a grey dot. */
  public static final String GREY_LABEL = "no category (uncertain or withheld)";
}
