package io.headscope.app.render.figure;

import io.headscope.app.render.HeadMatrix;
import io.headscope.app.render.Palette;
import java.util.ArrayList;
import java.util.List;

/**
 * One head's map for a paper: title (model and head), what is shown and which maps, the input, the
 * map with its tokens on both axes, and the colour scale with its numbers. Signed (difference) maps use
 * the diverging scale. The map's place is public so tests can read a cell's colour.
 */
public final class HeadFigure {
  /** The smallest cell at which token labels are drawn. */
  static final double LABELLED = 6;
  private final HeadMatrix m;
  private final double cell;
  private final Header header;
  private final ScaleBar scale;
  private final double labelW;
  private final double labelH;
  /** Where the map's top-left corner is, in figure units. */
  public final double mapX;
  public final double mapY;
  private final double width;
  private final double height;

  private HeadFigure(HeadMatrix m, Caption c, double cell) {
    this.m = m;
    this.cell = cell;
    boolean labels = cell >= LABELLED;
    double fs = fontSize(cell);
    double lw = 0;
    if (labels) {
      for (String t : m.rowTokens()) {
        lw = Math.max(lw, Fonts.width(t, fs, false));
      }
    }
    double lh = 0;
    if (labels) {
      for (String t : m.colTokens()) {
        lh = Math.max(lh, Fonts.width(t, fs, false));
      }
    }
    labelW = labels ? lw + 8 : 0;
    labelH = labels ? lh + 8 : 14;
    double mapW = m.cols() * cell;
    List<String> notes = new ArrayList<>();
    notes.add(what(m) + " · " + c.mapsLine());
    notes.add("rows: query tokens (attending) · columns: key tokens (attended to)");
    if (!labels) {
      notes.add(m.rows() + " × " + m.cols() + " tokens (cells too small for labels)");
    }
    scale = new ScaleBar(m.max(), m.signed(), m.signed() ? "as run − intact: red less attention, blue more"
        : m.display() == HeadMatrix.Display.WEIGHTS ? "attention weight" : "share of the row (norm-weighted)");
    double provisional = Math.max(Header.MARGIN * 2 + labelW + mapW, scale.width() + 2 * Header.MARGIN);
    header = Header.of(c.model() + " · head " + m.head() + " (layer " + (m.head().layer() + 1) + ", head "
        + (m.head().head() + 1) + ")", notes, c.input(), Math.max(provisional, 420));
    width = Math.max(Math.max(provisional, 420), header.width());
    mapX = Header.MARGIN + labelW;
    mapY = header.height() + labelH;
    height = mapY + m.rows() * cell + 14 + ScaleBar.TOTAL_HEIGHT + Header.MARGIN;
  }

  /** The figure of a matrix at {@code cell} units a cell (18 reads well; 1 for a 512-token overview). */
  public static Figure of(HeadMatrix m, Caption c, double cell) {
    HeadFigure f = new HeadFigure(m, c, cell);
    return f.figure();
  }

  /** The layout, for tests that read cells. */
  public static HeadFigure layout(HeadMatrix m, Caption c, double cell) {
    return new HeadFigure(m, c, cell);
  }

  public Figure figure() {
    String description = what(m) + " of head " + m.head() + "; " + scaleText();
    return new Figure(header.titleText(), description, width, height, this::paint).headedBy(header);
  }

  private String scaleText() {
    String[] e = scale.ends();
    return "colour scale " + e[0] + " to " + e[1];
  }

  static String what(HeadMatrix m) {
    String shown = switch (m.display()) {
      case WEIGHTS -> "attention weights";
      case NORMS -> "norm-weighted attention ‖αf(x)‖ (Kobayashi)";
      case LAYER_NORMS -> "whole layer ‖Σₕ αf(x)‖ (Kobayashi)";
      case ROLLOUT -> "attention rollout up to layer " + (m.head().layer() + 1) + " (Abnar & Zuidema)";
    };
    return shown + (m.filter() == HeadMatrix.PairFilter.ALL ? "" : ", " + m.filter())
        + (m.signed() ? ", difference as run − intact" : "");
  }

  private static double fontSize(double cell) {
    return Math.max(7, Math.min(11, cell * 0.7));
  }

  private void paint(Surface s) {
    header.draw(s);
    int[] px = m.signed() ? Palette.divergingPixels(m.values(), m.max()) : Palette.pixels(m.values(), m.max());
    s.cells(px, m.cols(), m.rows(), mapX, mapY, m.cols() * cell, m.rows() * cell);
    s.stroke(mapX, mapY, m.cols() * cell, m.rows() * cell, 0x999999, 0.8);
    if (cell >= LABELLED) {
      double fs = fontSize(cell);
      for (int i = 0; i < m.rows(); i++) {
        s.text(m.rowTokens().get(i), mapX - 4, mapY + (i + 0.5) * cell + fs * 0.35, fs, false, 0x000000,
            Surface.Anchor.END, 0);
      }
      for (int j = 0; j < m.cols(); j++) {
        s.text(m.colTokens().get(j), mapX + (j + 0.5) * cell + fs * 0.35, mapY - 4, fs, false, 0x000000,
            Surface.Anchor.START, -90);
      }
    }
    scale.draw(s, Header.MARGIN, mapY + m.rows() * cell + 14);
  }
}
