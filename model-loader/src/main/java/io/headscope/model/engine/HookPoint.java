package io.headscope.model.engine;

import io.headscope.model.core.BertConfig;
import io.headscope.model.core.HeadScopeException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A named place in the forward pass where an intermediate passes through (TransformerLens's hook
 * points, typed): what the analyses capture and where interventions act.
 *
 * <p>Names follow TransformerLens's {@code utils.get_act_name}: {@code hook_embed},
 * {@code blocks.3.attn.hook_pattern}, {@code blocks.3.hook_resid_post}, {@code hook_final}; layers
 * are 0-based in names, as there. Shapes use B batch, T tokens, H heads, d hidden, dh = d / H, f the
 * feed-forward width.
 *
 * @param kind what the point carries
 * @param layer the 0-based layer, or -1 for the points outside the layers ({@link Kind#EMBED},
 *     {@link Kind#FINAL})
 */
public record HookPoint(Kind kind, int layer) {

  /** Every kind of point, in the order the forward pass reaches them. */
  public enum Kind {
    /** Embeddings after their LayerNorm, (B, T, d). */
    EMBED("hook_embed", false),
    /** A layer's input, (B, T, d). */
    RESID_PRE("hook_resid_pre", true),
    /** Per-head queries, (B, H, T, dh). */
    ATTN_Q("attn.hook_q", true),
    /** Per-head keys, (B, H, T, dh). */
    ATTN_K("attn.hook_k", true),
    /** Per-head values, (B, H, T, dh). */
    ATTN_V("attn.hook_v", true),
    /** {@code q k^T / sqrt(dh)} plus the padding mask, before the softmax, (B, H, T, T). */
    ATTN_SCORES("attn.hook_scores", true),
    /** Attention probabilities, (B, H, T, T): the map; head masks act here. */
    ATTN_PATTERN("attn.hook_pattern", true),
    /** Pattern times values, (B, H, T, dh). */
    ATTN_Z("attn.hook_z", true),
    /**
     * Each head's output {@code z^h W_O^h} before the sum over heads (no bias), (B, T, H, d). Computed
     * only when something is attached here, as TransformerLens's {@code use_attn_result}.
     */
    ATTN_RESULT("attn.hook_result", true),
    /** The attention block's output, {@code sum_h result^h + b_O}, (B, T, d). */
    ATTN_OUT("hook_attn_out", true),
    /** {@code LayerNorm(resid_pre + attn_out)}, (B, T, d). */
    RESID_MID("hook_resid_mid", true),
    /*
     * The decoder of an encoder-decoder (T5, BART) only: its cross-attention, after the self-attention
     * block, reading the encoder's output (S source tokens) as keys and values. Named as TransformerLens's
     * HookedEncoderDecoder names them ({@code decoder.0.cross_attn.hook_pattern}); not among a single-stack
     * model's points ({@link #all}).
     */
    /** Cross-attention queries from the decoder, (B, H, T, dh). */
    CROSS_ATTN_Q("cross_attn.hook_q", true, true),
    /** Cross-attention keys from the encoder's output, (B, H, S, dh). */
    CROSS_ATTN_K("cross_attn.hook_k", true, true),
    /** Cross-attention values from the encoder's output, (B, H, S, dh). */
    CROSS_ATTN_V("cross_attn.hook_v", true, true),
    /** Cross-attention scores, (B, H, T, S). */
    CROSS_ATTN_SCORES("cross_attn.hook_scores", true, true),
    /** Cross-attention probabilities, (B, H, T, S): the cross map; head masks of kind cross act here. */
    CROSS_ATTN_PATTERN("cross_attn.hook_pattern", true, true),
    /** Cross pattern times values, (B, H, T, dh). */
    CROSS_ATTN_Z("cross_attn.hook_z", true, true),
    /** The cross-attention block's output, (B, T, d). */
    CROSS_ATTN_OUT("hook_cross_attn_out", true, true),
    /** The residual after the cross-attention block, (B, T, d). */
    RESID_MID_CROSS("hook_resid_mid_cross", true, true),
    /** The feed-forward's first product, before GELU, (B, T, f). */
    MLP_PRE("mlp.hook_pre", true),
    /** After GELU, (B, T, f). */
    MLP_POST("mlp.hook_post", true),
    /** The feed-forward's output, (B, T, d). */
    MLP_OUT("hook_mlp_out", true),
    /**
     * The layer's output, (B, T, d): {@code LayerNorm(resid_mid + mlp_out)}, or {@code resid_mid + mlp_out}
     * in a pre-LayerNorm model (GPT-2).
     */
    RESID_POST("hook_resid_post", true),
    /**
     * The encoder's output (the sequence output heads read, after GPT-2's {@code ln_f}: Hugging Face's
     * {@code last_hidden_state}), (B, T, d).
     */
    FINAL("hook_final", false);

    private final String suffix;
    private final boolean perLayer;
    private final boolean cross;

    Kind(String suffix, boolean perLayer) {
      this(suffix, perLayer, false);
    }

    Kind(String suffix, boolean perLayer, boolean cross) {
      this.suffix = suffix;
      this.perLayer = perLayer;
      this.cross = cross;
    }

    /** Whether only an encoder-decoder's decoder has this point (its cross-attention). */
    public boolean cross() {
      return cross;
    }

    public boolean perLayer() {
      return perLayer;
    }

    /** The name's last part, {@code attn.hook_pattern}. */
    public String suffix() {
      return suffix;
    }
  }

  public HookPoint {
    if (kind == null) {
      throw new IllegalArgumentException("no kind");
    }
    if (kind.perLayer ? layer < 0 : layer != -1) {
      throw new IllegalArgumentException(kind + (kind.perLayer ? " needs a layer >= 0" : " has no layer") + ", got " + layer);
    }
  }

  public static HookPoint embed() {
    return new HookPoint(Kind.EMBED, -1);
  }

  public static HookPoint fin() {
    return new HookPoint(Kind.FINAL, -1);
  }

  /** The point of a per-layer kind at 0-based layer {@code l}. */
  public static HookPoint of(Kind kind, int l) {
    return new HookPoint(kind, kind.perLayer ? l : -1);
  }

  public static HookPoint pattern(int l) {
    return new HookPoint(Kind.ATTN_PATTERN, l);
  }

  public static HookPoint residPre(int l) {
    return new HookPoint(Kind.RESID_PRE, l);
  }

  public static HookPoint residPost(int l) {
    return new HookPoint(Kind.RESID_POST, l);
  }

  /** TransformerLens's name, {@code blocks.3.attn.hook_pattern}. */
  public String name() {
    return kind.perLayer ? "blocks." + layer + "." + kind.suffix : kind.suffix;
  }

  @Override
  public String toString() {
    return name();
  }

  /** Every point of a model with this config, in forward order. */
  public static List<HookPoint> all(BertConfig config) {
    List<HookPoint> out = new ArrayList<>();
    out.add(embed());
    for (int l = 0; l < config.numHiddenLayers(); l++) {
      for (Kind k : Kind.values()) {
        if (k.perLayer && !k.cross) {
          out.add(new HookPoint(k, l));
        }
      }
    }
    out.add(fin());
    return Collections.unmodifiableList(out);
  }

  /**
   * The point with this name in a model with this config; a name that does not exist there is an
   * error that lists the valid forms.
   */
  public static HookPoint parse(String name, BertConfig config) {
    for (HookPoint p : all(config)) {
      if (p.name().equals(name)) {
        return p;
      }
    }
    throw new HeadScopeException("There is no hook point \"" + name + "\" in a model of "
        + config.numHiddenLayers() + " layers. Valid points: hook_embed, blocks.{0.."
        + (config.numHiddenLayers() - 1) + "}.{" + String.join(", ", perLayerSuffixes()) + "}, hook_final.");
  }

  /** Checks that this point exists in a model with this config. */
  public HookPoint checkIn(BertConfig config) {
    if (kind.perLayer && layer >= config.numHiddenLayers()) {
      parse(name(), config); // throws, naming the valid points
    }
    return this;
  }

  private static List<String> perLayerSuffixes() {
    List<String> s = new ArrayList<>();
    for (Kind k : Kind.values()) {
      if (k.perLayer && !k.cross) {
        s.add(k.suffix);
      }
    }
    return s;
  }
}
