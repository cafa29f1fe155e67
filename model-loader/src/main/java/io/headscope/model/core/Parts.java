package io.headscope.model.core;

/**
 * What a family's forward pass is made of, as named parts: the engine builds every family from these,
 * with the same hook points for all (TransformerLens's config-driven blocks). A new family is a config
 * reader that fills this record, a weight-name map, and at most one new part.
 *
 * @param norm LayerNorm ({@code (x - mean) / sqrt(var + eps) * g + b}) or RMSNorm ({@code x /
 *     sqrt(mean(x^2) + eps) * g}, no mean, no bias)
 * @param place after each sublayer (BERT's {@code ln(x + f(x))}) or before it ({@code x + f(ln(x))}, with
 *     a final norm after the last layer)
 * @param position learned absolute position embeddings added to the word embeddings, or rotary
 *     embeddings applied to every head's queries and keys
 * @param rotary the rotary frequencies (null unless {@code position} is {@link Position#ROTARY})
 * @param keyValueHeads heads of keys and values; fewer than the query heads is grouped-query attention
 *     (query head h reads key/value head {@code h / (heads / keyValueHeads)}), 1 is multi-query
 * @param qkvBias whether the query, key and value projections have biases
 * @param outBias whether the attention output projection has a bias
 * @param mask which keys a query sees: all (an encoder), itself and earlier ones (causal)
 * @param window with a causal mask, the most keys a query sees (itself and the {@code window - 1} before
 *     it: key j is seen from query i when {@code i - window < j <= i}); 0 for no window
 * @param mlp {@code W2 act(W1 x + b1) + b2} with a GELU, or the gated {@code W_down (silu(W_gate x) *
 *     W_up x)} (SwiGLU) without biases
 * @param head what predicts tokens: BERT's masked-LM transform and tied decoder, the word embeddings
 *     alone (tied), or a separate output matrix ({@code lm_head}, untied)
 * @param embeddingScale what the word embeddings are multiplied by (Gemma: {@code sqrt(hidden_size)} as a
 *     float32, as transformers' {@code normalizer}; 1 for the others)
 * @param residual how a pre-norm layer adds its sublayers: one after the other ({@code x + attn(ln1(x))},
 *     then {@code + mlp(ln2(.))} of that sum), or both from the layer's input (GPT-NeoX's {@code
 *     use_parallel_residual}: {@code x + attn(ln1(x)) + mlp(ln2(x))})
 * @param local the layers that attend locally, with their own rotary frequencies (ModernBERT); null when
 *     every layer is alike (and a window, if any, is every layer's: Mistral)
 */
public record Parts(
    Norm norm, NormPlace place, Position position, Rotary rotary, int keyValueHeads, boolean qkvBias,
    boolean outBias, Mask mask, int window, Mlp mlp, Head head, double embeddingScale, Residual residual,
    LocalLayers local, int headDim) {

  /** Heads that split the hidden size ({@code head_dim} = {@code hidden_size / num_attention_heads}). */
  public Parts(Norm norm, NormPlace place, Position position, Rotary rotary, int keyValueHeads, boolean qkvBias,
      boolean outBias, Mask mask, int window, Mlp mlp, Head head, double embeddingScale, Residual residual,
      LocalLayers local) {
    this(norm, place, position, rotary, keyValueHeads, qkvBias, outBias, mask, window, mlp, head, embeddingScale,
        residual, local, 0);
  }

  /**
   * These parts with an explicit {@code head_dim} (Gemma 7B: 16 heads of 256 over a hidden size of 3072): the
   * queries, keys and values are {@code heads * head_dim} wide, {@code o_proj} maps that width back to the
   * hidden size; 0 keeps {@code hidden_size / num_attention_heads}.
   */
  public Parts withHeadDim(int dh) {
    return new Parts(norm, place, position, rotary, keyValueHeads, qkvBias, outBias, mask, window, mlp, head,
        embeddingScale, residual, local, dh);
  }

  /** The parts of the families before GPT-NeoX and ModernBERT: sequential residual, every layer alike. */
  public Parts(Norm norm, NormPlace place, Position position, Rotary rotary, int keyValueHeads, boolean qkvBias,
      boolean outBias, Mask mask, int window, Mlp mlp, Head head, double embeddingScale) {
    this(norm, place, position, rotary, keyValueHeads, qkvBias, outBias, mask, window, mlp, head, embeddingScale,
        Residual.SEQUENTIAL, null);
  }

  /**
   * {@code RMS_NORM_UNIT_OFFSET}: Gemma's RMSNorm, whose stored weight w scales by {@code 1 + w}. {@code
   * LAYER_NORM_NO_BIAS}: LayerNorm without its shift (ModernBERT's {@code norm_bias} false), {@code (x - mean)
   * / sqrt(var + eps) * g}.
   */
  public enum Norm { LAYER_NORM, RMS_NORM, RMS_NORM_UNIT_OFFSET, LAYER_NORM_NO_BIAS }

  /** {@code PARALLEL}: GPT-NeoX's {@code use_parallel_residual}, both sublayers read the layer's input. */
  public enum Residual { SEQUENTIAL, PARALLEL }

  /**
   * ModernBERT's alternation: layer l attends globally (no window, {@code Parts.rotary}) when {@code l %
   * globalEvery == 0}, else within the window with these rotary frequencies ({@code local_rope_theta}).
   */
  public record LocalLayers(int globalEvery, Rotary rotary) {
    public LocalLayers {
      if (globalEvery < 1 || rotary == null) {
        throw new HeadScopeException("config.json: global_attn_every_n_layers must be positive, got " + globalEvery + ".");
      }
    }
  }

  public enum NormPlace { POST, PRE }

  /**
   * {@code RELATIVE_BUCKETS}: T5's relative position bias, a learned score per head and bucket of the
   * key's offset from the query, added to the scores ({@link RelativeBuckets}).
   */
  public enum Position { LEARNED, ROTARY, RELATIVE_BUCKETS }

  public enum Mask { BIDIRECTIONAL, CAUSAL }

  /** {@code GATED_GELU}: Gemma's GeGLU, {@code down(gelu(gate x) * up x)} with {@code hidden_activation}'s GELU. */
  public enum Mlp { GELU, GATED_SILU, GATED_GELU, /** T5 v1.0's {@code wo(relu(wi x))}, no biases. */ RELU }

  public enum Head { MASKED_LM, TIED, UNTIED }

  public Parts {
    if ((position == Position.ROTARY) != (rotary != null)) {
      throw new IllegalArgumentException("rotary frequencies go with rotary positions, and only with them");
    }
    // a window is either a causal mask's (Mistral: the window keys up to the query) or a bidirectional
    // one's (ModernBERT's local layers: the keys within window / 2 on either side); a bidirectional window
    // was refused before ModernBERT, when no family had one
    if (window < 0) {
      throw new IllegalArgumentException("a window is a number of keys");
    }
    if (headDim < 0) {
      throw new IllegalArgumentException("a head is a number of dimensions");
    }
    if (local != null && (mask != Mask.BIDIRECTIONAL || window == 0 || position != Position.ROTARY)) {
      throw new IllegalArgumentException("local layers are ModernBERT's: bidirectional, windowed and rotary");
    }
    if (residual == null) {
      throw new IllegalArgumentException("no residual kind");
    }
  }

  /**
   * Whether layer {@code l} attends within the window: every layer of a windowed model without local layers,
   * or ModernBERT's layers that are not global.
   */
  public boolean windowed(int l) {
    return window > 0 && (local == null || l % local.globalEvery() != 0);
  }

  /** Layer {@code l}'s rotary frequencies: ModernBERT's local layers have their own. */
  public Rotary rotary(int l) {
    return local != null && windowed(l) ? local.rotary() : rotary;
  }

  /** Whether the LayerNorms have a shift ({@code beta}); RMSNorms never do. */
  public boolean normBias() {
    return norm == Norm.LAYER_NORM;
  }

  /**
   * The parts of the families HeadScope read before the decoders of issue 41: BERT's post-LayerNorm
   * encoder and its kin, and GPT-2 (pre-LayerNorm, causal, tied head). Bit for bit the forward pass
   * they always had: the engine keeps their fused, unsplit path.
   */
  public static Parts of(Family f, int heads) {
    boolean gpt = f == Family.GPT2;
    return new Parts(Norm.LAYER_NORM, gpt ? NormPlace.PRE : NormPlace.POST, Position.LEARNED, null, heads, true, true,
        gpt ? Mask.CAUSAL : Mask.BIDIRECTIONAL, 0, Mlp.GELU, gpt ? Head.TIED : Head.MASKED_LM, 1);
  }

  /** Whether the MLP is gated (SwiGLU, GeGLU). */
  public boolean gated() {
    return mlp == Mlp.GATED_SILU || mlp == Mlp.GATED_GELU;
  }

  /** Whether the norm is an RMSNorm (with or without Gemma's unit offset). */
  public boolean rms() {
    return norm == Norm.RMS_NORM || norm == Norm.RMS_NORM_UNIT_OFFSET;
  }

  /**
   * Whether the parts come from the config (rotary positions: the Llama kin, GPT-NeoX, ModernBERT): the
   * engine's configured path, not BERT's fused one.
   */
  public boolean rotaryDecoder() {
    return position == Position.ROTARY;
  }

  /**
   * Rotary position embeddings as Llama's {@code LlamaRotaryEmbedding} computes them: pair {@code (x_i,
   * x_{i + dh/2})} of a head's query or key at position p turns by the angle {@code p * invFreq[i]}
   * ({@code rotate_half}), with {@code invFreq[i] = theta^(-2i / dh)}, changed by Llama 3's {@code
   * rope_scaling} when {@code factor > 0}.
   *
   * @param theta {@code rope_theta}
   * @param factor Llama 3's {@code factor} (0: no scaling)
   * @param lowFreqFactor Llama 3's {@code low_freq_factor}
   * @param highFreqFactor Llama 3's {@code high_freq_factor}
   * @param originalMaxPositions Llama 3's {@code original_max_position_embeddings}
   * @param fraction the share of each head's dimensions that turn (GPT-NeoX's {@code rotary_pct}): the first
   *     {@code int(dh * fraction)} turn among themselves, the rest pass unchanged; 1 for the others
   */
  public record Rotary(double theta, double factor, double lowFreqFactor, double highFreqFactor,
      int originalMaxPositions, double fraction) {
    /** A rotary embedding over the whole head. */
    public Rotary(double theta, double factor, double lowFreqFactor, double highFreqFactor, int originalMaxPositions) {
      this(theta, factor, lowFreqFactor, highFreqFactor, originalMaxPositions, 1);
    }

    public Rotary {
      if (!(fraction > 0 && fraction <= 1)) {
        throw new HeadScopeException("config.json: rotary_pct must be in (0, 1], got " + fraction + ".");
      }
      if (!(theta > 1) || Double.isInfinite(theta)) {
        throw new HeadScopeException("config.json: rope_theta must be a number above 1, got " + theta + ".");
      }
      if (factor != 0 && !(factor >= 1 && lowFreqFactor > 0 && highFreqFactor > lowFreqFactor
          && originalMaxPositions > 0)) {
        throw new HeadScopeException("config.json: rope_scaling (llama3) needs factor >= 1, 0 < low_freq_factor < "
            + "high_freq_factor and original_max_position_embeddings > 0.");
      }
    }

    /** No scaling: Llama 2, Mistral, Qwen2. */
    public static Rotary plain(double theta) {
      return new Rotary(theta, 0, 0, 0, 0);
    }

    /** No scaling, over the first {@code fraction} of each head (GPT-NeoX's {@code rotary_pct}). */
    public static Rotary partial(double theta, double fraction) {
      return new Rotary(theta, 0, 0, 0, 0, fraction);
    }

    /** The dimensions of a head of {@code headSize} that turn: {@code int(headSize * fraction)}, as transformers'
     * {@code rotary_ndims}. */
    public int dims(int headSize) {
      return (int) (headSize * fraction);
    }

    /**
     * The {@code r / 2} inverse frequencies of the {@code r = dims(headSize)} turning dimensions, {@code
     * theta^(-2i / r)}, in double. Llama 3 ({@code _compute_llama3_parameters}):
     * wavelengths {@code 2 pi / f} longer than {@code original / low_freq_factor} are divided by {@code
     * factor}, shorter than {@code original / high_freq_factor} kept, and those between blended with
     * {@code s = (original / wavelength - low) / (high - low)}: {@code (1 - s) f / factor + s f}.
     */
    public double[] inverseFrequencies(int headSize) {
      int r = dims(headSize);
      double[] f = new double[r / 2];
      for (int i = 0; i < f.length; i++) {
        double base = 1.0 / Math.pow(theta, (2.0 * i) / r);
        if (factor == 0) {
          f[i] = base;
          continue;
        }
        double wavelength = 2 * Math.PI / base;
        double lowWavelength = originalMaxPositions / lowFreqFactor;
        double highWavelength = originalMaxPositions / highFreqFactor;
        if (wavelength < highWavelength) {
          f[i] = base;
        } else if (wavelength > lowWavelength) {
          f[i] = base / factor;
        } else {
          double s = (originalMaxPositions / wavelength - lowFreqFactor) / (highFreqFactor - lowFreqFactor);
          f[i] = (1 - s) * base / factor + s * base;
        }
      }
      return f;
    }
  }
}
