package io.headscope.app.render.figure;

import java.util.ArrayList;
import java.util.List;

/** A figure's top block: a bold title, grey lines under it, the input wrapped to the figure's width. */
final class Header {
  static final double MARGIN = 12;
  private static final double TITLE = 14;
  private static final double LINE = 11;
  private final String title;
  private final List<String> lines;

  Header(String title, List<String> lines) {
    this.title = title;
    this.lines = lines;
  }

  /** The header of a figure {@code width} wide, with the input quoted and wrapped (at most 3 lines). */
  static Header of(String title, List<String> notes, String input, double width) {
    List<String> all = new ArrayList<>(notes);
    if (input != null && !input.isBlank()) {
      all.addAll(wrap("Input: \u201c" + input.strip() + "\u201d", width - 2 * MARGIN, 3));
    }
    return new Header(title, all);
  }

  String titleText() {
    return title;
  }

  /** The block as plain text: the title, then each line under it. */
  String text() {
    return title + (lines.isEmpty() ? "" : "\n" + String.join("\n", lines));
  }

  double height() {
    return MARGIN + TITLE + 4 + lines.size() * (LINE + 4) + 8;
  }

  double width() {
    double w = Fonts.width(title, TITLE, true);
    for (String l : lines) {
      w = Math.max(w, Fonts.width(l, LINE, false));
    }
    return w + 2 * MARGIN;
  }

  void draw(Surface s) {
    double y = MARGIN + TITLE;
    s.text(title, MARGIN, y, TITLE, true, 0x000000, Surface.Anchor.START, 0);
    for (String l : lines) {
      y += LINE + 4;
      s.text(l, MARGIN, y, LINE, false, 0x444444, Surface.Anchor.START, 0);
    }
  }

  /** Greedy word wrap to a width; the last line is elided with "…" when the text is longer. */
  static List<String> wrap(String text, double width, int maxLines) {
    List<String> out = new ArrayList<>();
    StringBuilder line = new StringBuilder();
    for (String w : text.split("\\s+")) {
      String next = line.length() == 0 ? w : line + " " + w;
      if (Fonts.width(next, LINE, false) > width && line.length() > 0) {
        out.add(line.toString());
        line = new StringBuilder(w);
        if (out.size() == maxLines) {
          String last = out.remove(maxLines - 1);
          while (Fonts.width(last + " …", LINE, false) > width && last.contains(" ")) {
            last = last.substring(0, last.lastIndexOf(' '));
          }
          out.add(last + " …");
          return out;
        }
      } else {
        line = new StringBuilder(next);
      }
    }
    if (line.length() > 0) {
      out.add(line.toString());
    }
    return out;
  }
}
