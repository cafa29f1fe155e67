package io.headscope.app.render.figure;

import java.util.function.Consumer;

/**
 * A picture for a paper, independent of how it is written: its size in 96-dpi pixels, a title and a
 * description (the SVG's {@code <title>} and {@code <desc>}), and the drawing.
 *
 * @param headerHeight how much of the top the title block takes (0: none), which {@link #plain()} leaves out
 * @param caption the title block as text: the title, the notes and the input, one a line
 */
public record Figure(String title, String description, double width, double height, Consumer<Surface> painter,
    double headerHeight, String caption) {

  /** A figure without a title block of its own. */
  public Figure(String title, String description, double width, double height, Consumer<Surface> painter) {
    this(title, description, width, height, painter, 0, title + "\n" + description);
  }

  /** The same figure, whose top is {@code header}: {@link #plain()} can leave it out and give it as text. */
  Figure headedBy(Header header) {
    return new Figure(title, description, width, height, painter, header.height(), header.text());
  }

  /**
   * The same figure without its title, notes and input (a journal sets its own caption): what lies under
   * the title block moves up, with the same margin; {@link #caption()} holds the text that was left out.
   */
  public Figure plain() {
    if (headerHeight <= 0) {
      return this;
    }
    double cut = headerHeight - Header.MARGIN;
    return new Figure(title, description, width, height - cut, s -> painter.accept(new BelowHeader(s, headerHeight, cut)),
        0, caption);
  }
}
