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
 */
public record Parts(
    Norm norm, NormPlace place, Position position, Rotary rotary, int keyValueHeads, boolean qkvBias,
    boolean outBias, Mask mask, int window, Mlp mlp, Head head, double embeddingScale) {

  /** {@code RMS_NORM_UNIT_OFFSET}: Gemma's RMSNorm, whose stored weight w scales by {@code 1 + w}. */
  public enum Norm { LAYER_NORM, RMS_NORM, RMS_NORM_UNIT_OFFSET }

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
    if (window < 0 || window > 0 && mask != Mask.CAUSAL) {
      throw new IllegalArgumentException("a window is a causal mask's");
    }
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
    return norm != Norm.LAYER_NORM;
  }

  /** Whether this is a rotary, grouped-query or gated model: the engine's decoder path, not BERT's fused one. */
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
   */
  public record Rotary(double theta, double factor, double lowFreqFactor, double highFreqFactor,
      int originalMaxPositions) {
    public Rotary {
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

    /**
     * The {@code dh / 2} inverse frequencies, in double. Llama 3 ({@code _compute_llama3_parameters}):
     * wavelengths {@code 2 pi / f} longer than {@code original / low_freq_factor} are divided by {@code
     * factor}, shorter than {@code original / high_freq_factor} kept, and those between blended with
     * {@code s = (original / wavelength - low) / (high - low)}: {@code (1 - s) f / factor + s f}.
     */
    public double[] inverseFrequencies(int headSize) {
      double[] f = new double[headSize / 2];
      for (int i = 0; i < f.length; i++) {
        double base = 1.0 / Math.pow(theta, (2.0 * i) / headSize);
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
