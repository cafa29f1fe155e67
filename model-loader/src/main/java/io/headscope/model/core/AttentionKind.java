package io.headscope.model.core;

/**
 * The three kinds of attention of an encoder-decoder: the encoder's self-attention (every source token
 * sees every other), the decoder's self-attention (causal, over the target) and its cross-attention
 * (target queries, source keys), as BertViz's head view shows them for an encoder-decoder.
 */
public enum AttentionKind {
  ENCODER("encoder"),
  DECODER("decoder"),
  CROSS("cross");

  /** The name the command line and the JSON use. */
  public final String label;

  AttentionKind(String label) {
    this.label = label;
  }

  /** The kind named {@code encoder}, {@code decoder} or {@code cross}; anything else in one line. */
  public static AttentionKind parse(String s) {
    for (AttentionKind k : values()) {
      if (k.label.equalsIgnoreCase(s == null ? "" : s.trim())) {
        return k;
      }
    }
    throw new HeadScopeException("Attention kind \"" + s + "\" is unknown: use encoder, decoder or cross.");
  }
}
