package io.headscope.app.render.figure;

import java.util.function.Consumer;

/**
 * A picture for a paper, independent of how it is written: its size in 96-dpi pixels, a title and a
 * description (the SVG's {@code <title>} and {@code <desc>}), and the drawing.
 */
public record Figure(String title, String description, double width, double height, Consumer<Surface> painter) {}
