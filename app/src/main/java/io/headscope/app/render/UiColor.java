package io.headscope.app.render;

/**
 * The app's named colours beyond the heatmap scale and the category / token-type colours, written
 * once: Java2D draws them through {@link AwtColors}, the window's canvases through the JavaFX adapter,
 * and the stylesheet through the looked-up colour {@code -hs-<cssName>} ({@link Palette#lookedUpColors}).
 */
public enum UiColor {
  /** A switched-off head: its cross, its name, its switch, a changed prediction. */
  OFF("off", 0xD62728),
  /** A head's frame before its category is known. */
  UNKNOWN("unknown", 0xB0B0B0),
  /** The head shown in the head view (its thumbnail's background). */
  SELECTED("selected", 0x1F1F1F),
  /** Heads picked with Ctrl-click. */
  PICKED("picked", 0xFF9F1C),
  /** A head running on FAVOR+ instead of softmax (the Linear attention screen's toggle): Okabe-Ito purple. */
  FAVOR("favor", 0xCC79A7),
  /** The heatmap's crosshair on the cell under the pointer. */
  CURSOR("cursor", 0xFF7F0E),
  /** The tokens of the heatmap's row and column under the pointer. */
  HOVER_TOKEN("hover-token", 0xD35400),
  /** Lines from the token under the pointer in the lines (BertViz) view. */
  LINE_HOVER("line-hover", 0xD62728),
  /** Lines of the lines view at rest (the scale's mid blue). */
  LINE("line", 0x2171B5),
  /** Secondary text: hints, axis labels. */
  TEXT_MUTED("text-muted", 0x555555),
  /** Headings and read-outs, a shade darker than hints. */
  TEXT_SOFT("text-soft", 0x444444),
  /** Text of something hidden (a legend category filtered out). */
  TEXT_FADED("text-faded", 0x999999),
  /** The empty part of a bar. */
  TRACK("track", 0xEEEEEE),
  /** Chart grid lines. */
  RULE("rule", 0xDDDDDD),
  /** The selected head's layer in the token-type chart. */
  HIGHLIGHT("highlight", 0xFFF3BF),
  /** Bars that are no category's (previous / self / next attention). */
  NEUTRAL_BAR("neutral-bar", 0x6B8FB5),
  /** Token chips: [MASK], other special tokens, sentence a, sentence b. */
  TOKEN_MASK("token-mask", 0xFFD8A8),
  TOKEN_SPECIAL("token-special", 0xE0E0E0),
  TOKEN_A("token-a", 0xDBE9F7),
  TOKEN_B("token-b", 0xD3F0D3),
  /** The pruning chart's curves: importance order and random order (Okabe and Ito's blue and vermillion). */
  PRUNE_IMPORTANCE("prune-importance", 0x0072B2),
  PRUNE_RANDOM("prune-random", 0xD55E00),
  /** The status bar. */
  STATUS_BACKGROUND("status-background", 0xF0F0F0),
  STATUS_BORDER("status-border", 0xCCCCCC),
  /** Code and identifiers in the rendered help: a dark brown, apart from the text and the link colour. */
  CODE("code", 0x7A2E0E),
  /** What the gold annotation says is right (the Linguistics screen's gold arcs and antecedents). */
  GOLD("gold", 0x2CA02C);

  private final String cssName;
  private final int rgb;

  UiColor(String cssName, int rgb) {
    this.cssName = cssName;
    this.rgb = rgb;
  }

  /** The looked-up colour's name without the {@code -hs-} prefix. */
  public String cssName() {
    return cssName;
  }

  /** 0xRRGGBB. */
  public int rgb() {
    return rgb;
  }
}
