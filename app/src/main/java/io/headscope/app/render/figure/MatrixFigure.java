package io.headscope.app.render.figure;

import io.headscope.app.render.Palette;
import java.util.List;
import java.util.Locale;

/**
 * A labelled matrix of numbers for a paper: the sweep's layers x heads effects, the corpus run's shares,
 * rollout, flow and layer-compatibility matrices. Cells coloured on the sequential scale (0 … max) or
 * the diverging one (−max … +max), optionally with their values written in them; a cell that is NaN
 * (not measured, e.g. a sweep cancelled part-way) is left hatched grey.
 */
public final class MatrixFigure {
  private MatrixFigure() {}

  /**
   * @param title the bold first line (and the SVG's title)
   * @param notes the grey lines under it (what is measured, how, partial or not)
   * @param values {@code [row][col]}; NaN for a cell without a value
   * @param meaning what the colours mean, under the scale
   * @param numbers write each value in its cell ({@code %.2f})
   */
  public static Figure of(String title, List<String> notes, String input, List<String> rowLabels,
      List<String> colLabels, double[][] values, boolean diverging, String meaning, double cell, boolean numbers) {
    return of(title, notes, input, rowLabels, colLabels, values, diverging, meaning, cell, numbers, null, null);
  }

  /**
   * As above, with one more column set apart on the right: a value per row of another kind (a sweep's whole
   * layer switched off beside its heads), on the same colour scale.
   *
   * @param side a value per row, or null for none
   * @param sideLabel the side column's label
   */
  public static Figure of(String title, List<String> notes, String input, List<String> rowLabels,
      List<String> colLabels, double[][] values, boolean diverging, String meaning, double cell, boolean numbers,
      double[] side, String sideLabel) {
    int rows = values.length;
    int cols = rows == 0 ? 0 : values[0].length;
    double max = 0;
    for (double[] r : values) {
      for (double v : r) {
        if (!Double.isNaN(v)) {
          max = Math.max(max, diverging ? Math.abs(v) : v);
        }
      }
    }
    if (side != null) {
      for (double v : side) {
        if (!Double.isNaN(v)) {
          max = Math.max(max, diverging ? Math.abs(v) : v);
        }
      }
    }
    double gap = side == null ? 0 : cell / 2;
    double sideW = side == null ? 0 : gap + cell;
    double top = max;
    double labelW = 8;
    for (String l : rowLabels) {
      labelW = Math.max(labelW, Fonts.width(l, 10, false) + 8);
    }
    double labelH = 8;
    for (String l : colLabels) {
      labelH = Math.max(labelH, Fonts.width(l, 10, false) + 8);
    }
    if (side != null) {
      labelH = Math.max(labelH, Fonts.width(sideLabel, 10, false) + 14);
    }
    ScaleBar scale = new ScaleBar(max, diverging, meaning);
    double mapW = cols * cell;
    double provisional = Math.max(2 * Header.MARGIN + labelW + mapW + sideW, scale.width() + 2 * Header.MARGIN);
    Header header = Header.of(title, notes, input, Math.max(provisional, 420));
    double width = Math.max(Math.max(provisional, 420), header.width());
    double mapX = Header.MARGIN + labelW;
    double mapY = header.height() + labelH;
    double height = mapY + rows * cell + 14 + ScaleBar.TOTAL_HEIGHT + Header.MARGIN;
    String[] ends = scale.ends();
    return new Figure(title, String.join("; ", notes) + "; colour scale " + ends[0] + " to " + ends[1], width, height, s -> {
      header.draw(s);
      for (int i = 0; i < rows; i++) {
        for (int j = 0; j < cols; j++) {
          cell(s, values[i][j], mapX + j * cell, mapY + i * cell, cell, top, diverging, numbers);
        }
      }
      s.stroke(mapX, mapY, mapW, rows * cell, 0x999999, 0.8);
      for (int i = 0; i < rows; i++) {
        s.text(rowLabels.get(i), mapX - 4, mapY + (i + 0.5) * cell + 3.5, 10, false, 0x000000, Surface.Anchor.END, 0);
      }
      for (int j = 0; j < cols; j++) {
        s.text(colLabels.get(j), mapX + (j + 0.5) * cell + 3.5, mapY - 4, 10, false, 0x000000, Surface.Anchor.START, -90);
      }
      if (side != null) {
        double sx = mapX + mapW + gap;
        for (int i = 0; i < rows; i++) {
          cell(s, side[i], sx, mapY + i * cell, cell, top, diverging, numbers);
        }
        s.stroke(sx, mapY, cell, rows * cell, 0x999999, 0.8);
        s.text(sideLabel, sx + cell / 2 + 3.5, mapY - 4, 10, false, 0x000000, Surface.Anchor.START, -90);
      }
      scale.draw(s, Header.MARGIN, mapY + rows * cell + 14);
    }).headedBy(header);
  }

  /** One cell: its colour and, if asked and room, its value; NaN hatched grey. */
  /** {@code v} in two decimals; a value that rounds to zero is {@code 0.00}, never {@code -0.00}. */
  public static String twoDecimals(double v) {
    String t = String.format(Locale.ROOT, "%.2f", v);
    return t.equals("-0.00") ? "0.00" : t;
  }

  private static void cell(Surface s, double v, double x, double y, double cell, double top, boolean diverging,
      boolean numbers) {
    if (Double.isNaN(v)) {
      s.fill(x, y, cell, cell, 0xEEEEEE);
      s.line(x, y + cell, x + cell, y, 0xBBBBBB, 1, 0.8);
      return;
    }
    int c = diverging ? Palette.diverging(v, top) : Palette.argb(v, top);
    s.fill(x, y, cell, cell, c & 0xFFFFFF);
    if (numbers && cell >= 22) {
      double t = top <= 0 ? 0 : Math.abs(v) / top;
      s.text(twoDecimals(v), x + cell / 2, y + cell / 2 + 3, Math.min(9, cell / 3.2), false,
          t > 0.6 ? 0xFFFFFF : 0x000000, Surface.Anchor.MIDDLE, 0);
    }
  }
}
