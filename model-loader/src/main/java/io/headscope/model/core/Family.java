package io.headscope.model.core;

/**
 * The model families HeadScope runs, as data: what each one changes in the forward pass that BERT
 * defines. Everything else (hook points, interventions, captures, read-outs) is the same for all.
 *
 * <ul>
 *   <li>BERT, RoBERTa, XLM-R, DistilBERT, ELECTRA and ALBERT are BERT's post-LayerNorm encoder
 *       ({@code ln(x + sublayer(x))}) with bidirectional attention; they differ in weight names, token
 *       types (none in DistilBERT), position ids (RoBERTa and XLM-R start at {@code pad_token_id + 1}),
 *       a projection from a narrower embedding (ELECTRA, ALBERT), one set of layer weights shared by
 *       every layer (ALBERT) and the masked-LM head's activation.</li>
 *   <li>GPT-2 is pre-LayerNorm ({@code x + sublayer(ln(x))}, a final {@code ln_f}), attends causally,
 *       has no embedding LayerNorm and no token types, and predicts the next token with the word
 *       embeddings (tied {@code lm_head}).</li>
 *   <li>Llama, Qwen2 and Mistral are pre-RMSNorm causal decoders with rotary positions, grouped-query
 *       attention and a SwiGLU MLP; Qwen2 adds biases to the query, key and value projections, Mistral a
 *       sliding window; Gemma scales the embeddings by sqrt(hidden), scales its RMSNorms by {@code 1 + w} and
 *       gates its MLP with the tanh GELU. Their parts come from their configs ({@link Parts},
 *       {@link DecoderConfigs}).</li>
 *   <li>GPT-NeoX (Pythia) is a pre-LayerNorm causal decoder with a parallel residual, rotary positions over
 *       part of each head, the fused per-head {@code query_key_value} and an untied {@code embed_out};
 *       ModernBERT is a pre-LayerNorm encoder (bias-free LayerNorms, the first layer's attention norm absent)
 *       with rotary positions of two thetas, a bidirectional sliding window in all but every n-th layer, a
 *       GeGLU MLP and BERT's masked-LM head ({@link NeoxModernConfigs}).</li>
 * </ul>
 */
public enum Family {
  BERT("bert", "bert.", "BERT"),
  ROBERTA("roberta", "roberta.", "RoBERTa"),
  XLM_ROBERTA("xlm-roberta", "roberta.", "XLM-RoBERTa"),
  DISTILBERT("distilbert", "distilbert.", "DistilBERT"),
  ELECTRA("electra", "electra.", "ELECTRA"),
  ALBERT("albert", "albert.", "ALBERT"),
  GPT2("gpt2", "transformer.", "GPT-2"),
  LLAMA("llama", "model.", "Llama"),
  QWEN2("qwen2", "model.", "Qwen2"),
  MISTRAL("mistral", "model.", "Mistral"),
  GEMMA("gemma", "model.", "Gemma"),
  GPT_NEOX("gpt_neox", "gpt_neox.", "GPT-NeoX"),
  MODERNBERT("modernbert", "model.", "ModernBERT");

  /** {@code model_type} in {@code config.json}. */
  public final String modelType;
  /** The prefix a task model (masked LM, classifier) puts before the base model's weights. */
  public final String basePrefix;
  /** The name people write. */
  public final String displayName;

  Family(String modelType, String basePrefix, String displayName) {
    this.modelType = modelType;
    this.basePrefix = basePrefix;
    this.displayName = displayName;
  }

  /** The name after its indefinite article: "a RoBERTa", "an ALBERT", "an ELECTRA", "an XLM-RoBERTa". */
  public String withArticle() {
    return (this == ALBERT || this == ELECTRA || this == XLM_ROBERTA ? "an " : "a ") + displayName;
  }

  /** Whether a token attends only to itself and earlier tokens. */
  public boolean causal() {
    return this == GPT2 || rotaryDecoder() || this == GPT_NEOX;
  }

  /** Llama and the families built like it: rotary positions, RMSNorm, SwiGLU, grouped queries. */
  public boolean rotaryDecoder() {
    return this == LLAMA || this == QWEN2 || this == MISTRAL || this == GEMMA;
  }

  /** Whether LayerNorm comes before each sublayer (plus a final one) instead of after it. */
  public boolean preLayerNorm() {
    return this == GPT2 || rotaryDecoder() || this == GPT_NEOX || this == MODERNBERT;
  }

  /** Whether inputs carry token type (segment) ids. */
  public boolean hasTokenTypes() {
    return this != DISTILBERT && this != GPT2 && !rotaryDecoder() && this != GPT_NEOX && this != MODERNBERT;
  }

  /** Whether the embeddings are normalised before the first layer. */
  public boolean hasEmbeddingLayerNorm() {
    return this != GPT2 && !rotaryDecoder() && this != GPT_NEOX; // ModernBERT: embeddings.norm
  }

  /** Whether the model is trained to fill in masked tokens (else it predicts the next token). */
  public boolean masked() {
    return this != GPT2 && !rotaryDecoder() && this != GPT_NEOX;
  }

  /**
   * The activation of the masked-LM head's transform: RoBERTa's {@code RobertaLMHead} and ELECTRA's
   * generator head call the exact GELU whatever {@code hidden_act} says; the others use {@code hidden_act}.
   */
  public String headActivation(String hiddenAct) {
    return this == ROBERTA || this == XLM_ROBERTA || this == ELECTRA ? "gelu" : hiddenAct;
  }

  /** The family of a {@code model_type}, or a one-line refusal naming the file. */
  public static Family of(String modelType, java.nio.file.Path configJson) {
    for (Family f : values()) {
      if (f.modelType.equals(modelType)) {
        return f;
      }
    }
    StringBuilder known = new StringBuilder();
    for (Family f : values()) {
      known.append(known.length() == 0 ? "" : ", ").append(f.modelType);
    }
    throw new HeadScopeException(configJson + ": model_type is \"" + modelType + "\"; HeadScope reads " + known
        + ".");
  }
}
