package io.headscope.app.gui.chart;

import io.headscope.analysis.heads.LayerTokenTypes;
import io.headscope.analysis.heads.TokenType;
import io.headscope.analysis.heads.TokenTypeShares;
import io.headscope.app.gui.style.FxColors;
import io.headscope.app.render.UiColor;
import java.util.List;
import java.util.Locale;
import javafx.beans.NamedArg;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.Label;
import javafx.scene.layout.Pane;
import javafx.scene.layout.VBox;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

/**
 * Clark's token-type attention per layer as pairs of stacked bars: the attention weights on the
 * left, the norm-weighted shares (Kobayashi) on the right, so the fall of [SEP] and [CLS] under norms
 * shows at a glance. Used for one input (head panel) and for a corpus.
 */
public final class TokenTypeChart extends VBox {
  private static final double LEFT = 28;
  private static final double TOP = 18;
  private static final double BOTTOM = 16;
  private final Canvas canvas = new Canvas(300, 140);
  private final Pane holder = new Pane(canvas);
  private final Label hover = new Label(" ");
  private List<LayerTokenTypes> layers = List.of();
  private int highlight = -1;
  private io.headscope.app.render.TokenTypeNames names = io.headscope.app.render.TokenTypeNames.BERT;

  public TokenTypeChart(@NamedArg("chartHeight") double height) {
    setSpacing(1);
    canvas.setHeight(height);
    holder.setMinHeight(height);
    holder.setPrefHeight(height);
    holder.setMinWidth(160);
    canvas.widthProperty().bind(holder.widthProperty());
    canvas.widthProperty().addListener((o, a, b) -> redraw());
    hover.getStyleClass().addAll("hs-readout", "hs-tiny");
    hover.setWrapText(true);
    canvas.setOnMouseMoved(e -> hover.setText(describe(layerAt(e.getX()))));
    canvas.setOnMouseExited(e -> hover.setText(" "));
    getChildren().addAll(holder, hover);
  }

  /** Shows these layers; {@code highlight} (0-based, or -1) is drawn on a tinted background. */
  public void show(List<LayerTokenTypes> layers, int highlight) {
    show(layers, highlight, io.headscope.app.render.TokenTypeNames.BERT);
  }

  /** As {@link #show(List, int)}, the special tokens named as the model names them. */
  public void show(List<LayerTokenTypes> layers, int highlight, io.headscope.app.render.TokenTypeNames names) {
    this.names = names;
    this.layers = List.copyOf(layers);
    this.highlight = highlight;
    redraw();
  }

  /** The node a PNG export snapshots. */
  public Canvas chartNode() {
    return canvas;
  }

  private double groupWidth() {
    return (canvas.getWidth() - LEFT - 4) / Math.max(1, layers.size());
  }

  private int layerAt(double x) {
    int l = (int) Math.floor((x - LEFT) / groupWidth());
    return x < LEFT || l >= layers.size() ? -1 : l;
  }

  private String describe(int l) {
    if (l < 0) {
      return " ";
    }
    LayerTokenTypes t = layers.get(l);
    StringBuilder s = new StringBuilder("layer " + (l + 1) + ":");
    for (TokenType type : TokenType.values()) {
      if (names.label(type) == null) {
        continue;
      }
      s.append(t.norm() == null ? String.format(Locale.ROOT, "  %s %.2f", names.label(type), t.weight().get(type))
          : String.format(Locale.ROOT, "  %s %.2f → %.2f", names.label(type), t.weight().get(type), t.norm().get(type)));
    }
    return s.append(t.norm() == null ? "  (weights)" : "  (weight → norm-weighted)").toString();
  }

  private void redraw() {
    GraphicsContext g = canvas.getGraphicsContext2D();
    double w = canvas.getWidth();
    double h = canvas.getHeight();
    g.setFill(Color.WHITE);
    g.fillRect(0, 0, w, h);
    g.setFont(Font.font(10));
    g.setTextBaseline(VPos.CENTER);
    // legend on top
    double x = LEFT;
    g.setTextAlign(TextAlignment.LEFT);
    for (TokenType t : TokenType.values()) {
      if (names.label(t) == null) {
        continue; // a type this model has no token for (a decoder's [SEP])
      }
      g.setFill(FxColors.tokenType(t));
      g.fillRect(x, 4, 10, 10);
      g.setFill(Color.BLACK);
      g.fillText(names.label(t), x + 13, 9);
      x += 13 + 6.5 * names.label(t).length() + 10;
    }
    g.setFill(FxColors.of(UiColor.TEXT_MUTED));
    boolean weightsOnly = !layers.isEmpty() && layers.get(0).norm() == null;
    g.fillText(weightsOnly ? "bars: weights" : "bars: weights | norms", x + 4, 9);
    if (layers.isEmpty()) {
      return;
    }
    double plotH = h - TOP - BOTTOM;
    double gw = groupWidth();
    double bw = Math.max(2, gw * 0.36);
    g.setTextAlign(TextAlignment.RIGHT);
    g.setStroke(FxColors.of(UiColor.RULE));
    for (double v : new double[] {0, 0.5, 1}) {
      double y = TOP + plotH * (1 - v);
      g.strokeLine(LEFT, y, w - 4, y);
      g.setFill(FxColors.of(UiColor.TEXT_MUTED));
      g.fillText(v == 0.5 ? ".5" : String.valueOf((int) v), LEFT - 4, y);
    }
    g.setTextAlign(TextAlignment.CENTER);
    for (int l = 0; l < layers.size(); l++) {
      double gx = LEFT + l * gw;
      if (l == highlight) {
        g.setFill(FxColors.of(UiColor.HIGHLIGHT));
        g.fillRect(gx, TOP - 2, gw, plotH + BOTTOM + 2);
      }
      if (layers.get(l).norm() == null) {
        stack(g, layers.get(l).weight(), gx + gw / 2 - bw / 2, bw, plotH); // weights alone, centred
      } else {
        stack(g, layers.get(l).weight(), gx + gw / 2 - bw - 0.5, bw, plotH);
        stack(g, layers.get(l).norm(), gx + gw / 2 + 0.5, bw, plotH);
      }
      g.setFill(l == highlight ? Color.BLACK : FxColors.of(UiColor.TEXT_MUTED));
      g.fillText(String.valueOf(l + 1), gx + gw / 2, h - BOTTOM / 2);
    }
  }

  private static void stack(GraphicsContext g, TokenTypeShares s, double x, double bw, double plotH) {
    double y = TOP + plotH;
    for (TokenType t : TokenType.values()) {
      double part = Math.max(0, s.get(t)) * plotH;
      g.setFill(FxColors.tokenType(t));
      g.fillRect(x, y - part, bw, part);
      y -= part;
    }
  }
}
