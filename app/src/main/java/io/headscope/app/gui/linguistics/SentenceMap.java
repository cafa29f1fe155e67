package io.headscope.app.gui.linguistics;

import io.headscope.analysis.linguistics.HeadOnSentence;
import io.headscope.app.gui.style.FxColors;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

/**
 * One head's word-level map of one treebank sentence, words on both axes: each gold arc framed in
 * green at (dependent's row, head's column); the head's own picks in the dependent's row: its dep→head
 * pick (the word the dependent attends to most) a filled dot, its head→dep pick (the word attending
 * most to the dependent) a ring. A mark inside a frame is right.
 */
public final class SentenceMap extends Canvas {
  static final Color GOLD = io.headscope.app.gui.style.FxColors.of(io.headscope.app.render.UiColor.GOLD);
  static final Color PICK = Color.rgb(0xD6, 0x27, 0x28);
  private HeadOnSentence shown;
  private String relation = "all";
  private double label = 70;

  public SentenceMap() {
    setId("ling-sentence");
  }

  void show(HeadOnSentence on, String markedRelation, double maxWidth) {
    shown = on;
    relation = markedRelation;
    redraw(maxWidth);
  }

  HeadOnSentence shown() {
    return shown;
  }

  private void redraw(double maxWidth) {
    GraphicsContext g = getGraphicsContext2D();
    if (shown == null) {
      setWidth(1);
      setHeight(1);
      g.clearRect(0, 0, 1, 1);
      return;
    }
    int n = shown.words().size();
    double cell = Math.max(6, Math.min(24, (maxWidth - label - 8) / n));
    setWidth(label + n * cell + 4);
    setHeight(label + n * cell + 4);
    g.setFill(Color.WHITE);
    g.fillRect(0, 0, getWidth(), getHeight());
    float max = 0;
    for (float[] row : shown.map()) {
      for (float v : row) {
        max = Math.max(max, v);
      }
    }
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        g.setFill(FxColors.scale(shown.map()[i][j], max));
        g.fillRect(label + j * cell, label + i * cell, cell, cell);
      }
    }
    g.setFill(Color.BLACK);
    g.setFont(Font.font(Math.min(11, Math.max(7, cell * 0.6))));
    g.setTextBaseline(VPos.CENTER);
    g.setTextAlign(TextAlignment.RIGHT);
    for (int i = 0; i < n; i++) {
      g.fillText(clip(shown.words().get(i)), label - 4, label + (i + 0.5) * cell);
    }
    for (int j = 0; j < n; j++) {
      g.save();
      g.translate(label + (j + 0.5) * cell, label - 4);
      g.rotate(-90);
      g.setTextAlign(TextAlignment.LEFT);
      g.fillText(clip(shown.words().get(j)), 0, 0);
      g.restore();
    }
    int words = shown.gold().length - 1;
    g.setLineWidth(2);
    for (int i = 1; i <= words; i++) {
      if (!shown.counts(relation, i)) {
        continue;
      }
      int head = shown.gold()[i];
      if (head != 0) {
        g.setStroke(GOLD);
        g.strokeRect(label + head * cell + 1, label + i * cell + 1, cell - 2, cell - 2);
      }
      double r = Math.max(2, cell * 0.18);
      int d = shown.depToHead()[i];
      g.setFill(PICK);
      g.fillOval(label + (d + 0.5) * cell - r, label + (i + 0.5) * cell - r, 2 * r, 2 * r);
      int q = shown.headToDep()[i];
      g.setStroke(PICK);
      g.setLineWidth(1.2);
      // drawn in the dependent's row like the dot (the map's own cell is the transposed one), so both
      // picks read the same way: inside the frame is right
      g.strokeOval(label + (q + 0.5) * cell - r - 1.5, label + (i + 0.5) * cell - r - 1.5, 2 * r + 3, 2 * r + 3);
      g.setLineWidth(2);
    }
  }

  private static String clip(String s) {
    return s.length() > 10 ? s.substring(0, 9) + "…" : s;
  }
}
