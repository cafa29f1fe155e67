package io.headscope.app.gui.main;

import io.headscope.app.gui.style.FxColors;
import io.headscope.app.render.UiColor;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.List;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.Region;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.Text;
import javafx.util.Duration;

/**
 * The input's tokens as chips under the text field, coloured by kind ({@code [MASK]}, other special
 * tokens, sentence a, sentence b), wrapped to the width, with a last red chip when wordpieces were
 * cut to fit the model. Drawn on one canvas: 512 chips as controls cost the window most of a second of
 * CSS and layout; drawn, they cost a few milliseconds. One tooltip names the token under the pointer.
 */
public final class TokenStrip extends Region {
  private static final double H = 18;
  private static final double GAP = 3;
  private static final double PAD = 4;
  private static final Font FONT = Font.font(12);
  private final Canvas canvas = new Canvas();
  private final Tooltip tip = new Tooltip();
  private final Text measure = new Text();
  private Encoding encoding;
  private List<Chip> chips = List.of();
  private double laidOutWidth = -1;

  /** One chip: its text, kind and box (the cut marker has index -1). */
  record Chip(String text, int index, double x, double y, double w) {}

  public TokenStrip() {
    setId("token-strip");
    getChildren().add(canvas);
    measure.setFont(FONT);
    tip.setShowDelay(Duration.millis(300));
    setOnMouseMoved(e -> {
      Chip c = chipAt(e.getX(), e.getY());
      if (c == null) {
        Tooltip.uninstall(this, tip);
        return;
      }
      tip.setText(describe(c));
      Tooltip.install(this, tip);
    });
  }

  /** Shows an input's tokens (null clears the strip). */
  public void show(Encoding e) {
    encoding = e;
    laidOutWidth = -1;
    requestLayout();
  }

  /** How many chips are drawn (the tokens, and the cut marker if any), for tests. */
  public int chipCount() {
    return chips.size();
  }

  @Override
  protected double computePrefHeight(double width) {
    double w = width > 0 ? width : getWidth() > 0 ? getWidth() : 800;
    List<Chip> cs = placed(w);
    return cs.isEmpty() ? H + 2 * PAD : bottom(cs) + PAD;
  }

  /** The chips wrapped to a width, remembered for the last width asked. */
  private List<Chip> placed(double width) {
    if (width != laidOutWidth) {
      chips = place(width);
      laidOutWidth = width;
    }
    return chips;
  }

  @Override
  protected double computeMinHeight(double width) {
    return H + 2 * PAD;
  }

  @Override
  protected void layoutChildren() {
    double w = getWidth();
    placed(w);
    canvas.setWidth(w);
    canvas.setHeight(Math.max(H + 2 * PAD, chips.isEmpty() ? 0 : bottom(chips) + PAD));
    draw();
  }

  private static double bottom(List<Chip> cs) {
    return cs.get(cs.size() - 1).y() + H;
  }

  /** Wraps the chips to a width, left to right. */
  private List<Chip> place(double width) {
    if (encoding == null) {
      return List.of();
    }
    List<Chip> out = new ArrayList<>(encoding.length() + 1);
    double x = 6;
    double y = PAD;
    int n = encoding.length();
    for (int i = 0; i <= n; i++) {
      String text = i < n ? encoding.tokens().get(i)
          : encoding.wasTruncated() ? "✂ " + encoding.droppedWordpieces() + " more cut" : null;
      if (text == null) {
        break;
      }
      measure.setText(text);
      double w = Math.ceil(measure.getLayoutBounds().getWidth()) + 8;
      if (x + w > width - 6 && x > 6) {
        x = 6;
        y += H + GAP;
      }
      out.add(new Chip(text, i < n ? i : -1, x, y, w));
      x += w + GAP;
    }
    return out;
  }

  private void draw() {
    GraphicsContext g = canvas.getGraphicsContext2D();
    g.clearRect(0, 0, canvas.getWidth(), canvas.getHeight());
    g.setFont(FONT);
    g.setTextBaseline(VPos.CENTER);
    int second = encoding == null ? -1 : encoding.secondStart();
    for (Chip c : chips) {
      String tok = c.text();
      UiColor fill = c.index() < 0 ? UiColor.OFF : tok.equals("[MASK]") ? UiColor.TOKEN_MASK
          : tok.startsWith("[") ? UiColor.TOKEN_SPECIAL : second >= 0 && c.index() >= second ? UiColor.TOKEN_B : UiColor.TOKEN_A;
      g.setFill(FxColors.of(fill));
      g.fillRoundRect(c.x(), c.y(), c.w(), H, 6, 6);
      g.setFill(c.index() < 0 ? Color.WHITE : Color.BLACK);
      g.fillText(tok, c.x() + 4, c.y() + H / 2);
    }
  }

  private Chip chipAt(double x, double y) {
    for (Chip c : chips) {
      if (x >= c.x() && x <= c.x() + c.w() && y >= c.y() && y <= c.y() + H) {
        return c;
      }
    }
    return null;
  }

  private String describe(Chip c) {
    if (c.index() < 0) {
      return encoding.droppedWordpieces() + " wordpieces did not fit the model's " + encoding.length()
          + " positions and are not in the maps.";
    }
    int second = encoding.secondStart();
    return "token " + c.index() + ", id " + encoding.ids()[c.index()]
        + (second >= 0 ? ", segment " + (c.index() >= second ? "b" : "a") : "");
  }
}
