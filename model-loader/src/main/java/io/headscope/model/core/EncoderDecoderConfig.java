package io.headscope.model.core;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * An encoder-decoder's shape and parts (T5, BART), read from its {@code config.json}: two stacks, the
 * encoder's bidirectional self-attention, the decoder's causal self-attention and its cross-attention to
 * the encoder's output. What each stack is made of is a {@link Parts}, as for the single-stack families;
 * what only an encoder-decoder has is here beside it.
 *
 * <ul>
 *   <li>T5 ({@code T5Config}, {@code modeling_t5.py}): pre-norm with T5LayerNorm (an RMSNorm: no mean, no
 *       bias), no position embeddings but a relative position bias ({@link RelativeBuckets}) computed in the
 *       first layer of each stack and shared by its other layers (none in cross-attention), no {@code
 *       1/sqrt(dh)} scaling of the scores, no biases, a ReLU MLP ({@code feed_forward_proj "relu"}) or v1.1's
 *       gated GELU ({@code "gated-gelu"}: {@code wo(gelu_new(wi_0 x) * wi_1 x)}), a final norm in each
 *       stack, and when the head is tied to {@code shared.weight} the decoder's output times {@code
 *       d_model^-0.5}.</li>
 *   <li>BART ({@code BartConfig}, {@code modeling_bart.py}): post-LayerNorm, learned positions with the ids
 *       offset by 2, {@code layernorm_embedding} after the embeddings, the word embeddings times {@code
 *       sqrt(d_model)} when {@code scale_embedding}, queries times {@code dh^-0.5}, GELU MLP with biases, a
 *       head tied to {@code shared.weight} plus {@code final_logits_bias}.</li>
 * </ul>
 *
 * @param family T5 or BART
 * @param encoder the encoder stack's parts (bidirectional)
 * @param decoder the decoder stack's parts (causal); its cross-attention has the same norm, biases and
 *     scaling but no position part
 * @param activation the MLP's activation as the config names it ({@code relu}, {@code gelu}, {@code gelu_new})
 * @param scaleScores whether scores are {@code q k / sqrt(dh)} (BART) or {@code q k} (T5)
 * @param relative T5's relative buckets (null for BART)
 * @param maxPositions BART's {@code max_position_embeddings} (the table has 2 rows more); T5 has no limit of
 *     its own, given here as {@link #T5_LENGTH}
 * @param headScale what the decoder's output is multiplied by before the head: T5's {@code d_model^-0.5}
 *     when tied, else 1
 */
public record EncoderDecoderConfig(
    Family family, int vocabSize, int dModel, int encoderLayers, int decoderLayers, int encoderHeads,
    int decoderHeads, int headSize, int encoderFf, int decoderFf, String activation, double eps, Parts encoder,
    Parts decoder, boolean scaleScores, RelativeBuckets relative, int maxPositions, double headScale,
    boolean tiedHead) {

  /** The two families. */
  public enum Family {
    T5("t5", "T5"),
    BART("bart", "BART");

    public final String modelType;
    public final String displayName;

    Family(String modelType, String displayName) {
      this.modelType = modelType;
      this.displayName = displayName;
    }
  }

  /** BART's learned positions start at id 2 ({@code BartLearnedPositionalEmbedding.offset}). */
  public static final int BART_POSITION_OFFSET = 2;

  /** The most tokens HeadScope gives a T5 stack (T5 was trained on 512; its buckets have no limit). */
  public static final int T5_LENGTH = 2048;

  public EncoderDecoderConfig {
    positive("vocab_size", vocabSize, 10_000_000);
    positive("d_model", dModel, 65_536);
    positive("encoder layers", encoderLayers, 1_000);
    positive("decoder layers", decoderLayers, 1_000);
    positive("encoder heads", encoderHeads, 65_536);
    positive("decoder heads", decoderHeads, 65_536);
    positive("head size", headSize, 65_536);
    positive("encoder ffn size", encoderFf, 1 << 20);
    positive("decoder ffn size", decoderFf, 1 << 20);
    if (!(eps > 0 && eps < 1)) {
      throw new HeadScopeException("config.json: the norms' epsilon must be in (0, 1), got " + eps + ".");
    }
  }

  private static void positive(String key, int v, int max) {
    if (v < 1 || v > max) {
      throw new HeadScopeException("config.json: " + key + " must be between 1 and " + max + ", got " + v + ".");
    }
  }

  public int heads(boolean decoderStack) {
    return decoderStack ? decoderHeads : encoderHeads;
  }

  public int layers(boolean decoderStack) {
    return decoderStack ? decoderLayers : encoderLayers;
  }

  /** The most tokens a source or a target may have, special tokens included. */
  public int maxTokens() {
    return family == Family.T5 ? T5_LENGTH : maxPositions;
  }

  /** The family of an encoder-decoder's {@code model_type}, or null when it is not one. */
  public static Family familyOf(String modelType) {
    if ("mt5".equals(modelType)) {
      return Family.T5; // MT5Config: T5 v1.1's layout and keys (gated-gelu, untied head), a larger vocabulary
    }
    for (Family f : Family.values()) {
      if (f.modelType.equals(modelType)) {
        return f;
      }
    }
    return null;
  }

  /** Whether {@code config.json} describes an encoder-decoder (T5, BART); false when unreadable. */
  public static boolean describes(Path configJson) {
    try {
      JsonNode root = ConfigFields.JSON.readTree(Files.readString(configJson));
      return root != null && familyOf(root.path("model_type").asText("")) != null;
    } catch (IOException | RuntimeException e) {
      return false; // the reader proper names what is wrong with it
    }
  }

  /**
   * The one line every command that reads encoders and decoders only says of an encoder-decoder: what it
   * is, and which commands show it.
   */
  public static String notOneStack(Path configJson, Family f) {
    return configJson + " is " + (f == Family.T5 ? "a T5" : "a BART") + " encoder-decoder: HeadScope shows its encoder, decoder and cross-attention maps with `attention "
        + "--text SOURCE --target TARGET` and its next target tokens with `predict --text SOURCE --target TARGET`; "
        + "this reads single-stack encoders and decoders only.";
  }

  public static EncoderDecoderConfig read(Path configJson) {
    JsonNode root;
    try {
      root = ConfigFields.JSON.readTree(configJson.toFile());
    } catch (IOException e) {
      throw new HeadScopeException(configJson + " is not valid JSON: " + e.getMessage().lines().findFirst().orElse(""), e);
    }
    if (root == null || !root.isObject()) {
      throw new HeadScopeException(configJson + " is not a JSON object.");
    }
    Family f = familyOf(root.path("model_type").asText(""));
    if (f == null) {
      throw new HeadScopeException(configJson + ": model_type is \"" + root.path("model_type").asText("")
          + "\", not an encoder-decoder (t5, bart); --target goes with encoder-decoders only.");
    }
    try {
      return f == Family.T5 ? t5(root, configJson) : bart(root, configJson);
    } catch (HeadScopeException e) {
      String m = e.getMessage();
      throw m.startsWith("config.json") ? new HeadScopeException(configJson + m.substring("config.json".length()), e) : e;
    }
  }

  /** T5Config's keys and defaults (t5-small's shape). */
  private static EncoderDecoderConfig t5(JsonNode root, Path file) {
    int d = BertConfig.optionalInt(root, "d_model", 512, file);
    int layers = BertConfig.optionalInt(root, "num_layers", 6, file);
    int decoderLayers = root.hasNonNull("num_decoder_layers") ? BertConfig.optionalInt(root, "num_decoder_layers", layers, file) : layers;
    int heads = BertConfig.optionalInt(root, "num_heads", 8, file);
    int dkv = BertConfig.optionalInt(root, "d_kv", 64, file);
    int ff = BertConfig.optionalInt(root, "d_ff", 2048, file);
    String proj = root.path("feed_forward_proj").asText("relu");
    // T5Config: "gated-ACT" is a gated MLP with ACT; "gated-gelu" means gelu_new (the tanh GELU)
    Parts.Mlp mlp;
    String act;
    switch (proj) {
      case "relu" -> {
        mlp = Parts.Mlp.RELU;
        act = "relu";
      }
      case "gated-gelu" -> {
        mlp = Parts.Mlp.GATED_GELU;
        act = "gelu_new";
      }
      case "gelu", "gelu_new" -> {
        mlp = Parts.Mlp.GELU;
        act = proj;
      }
      default -> throw new HeadScopeException("config.json: feed_forward_proj \"" + proj + "\"; HeadScope runs T5 "
          + "MLPs of relu (T5 v1.0), gated-gelu (v1.1, Flan-T5) and gelu.");
    }
    boolean tied = root.path("tie_word_embeddings").asBoolean(true);
    // transformers 5 ties every T5's head to shared.weight and writes tie_word_embeddings true even for v1.1, whose
    // decoder output it then leaves unscaled: it says so in scale_decoder_outputs (false), which older configs
    // lack (there the scale goes with the tie, as in transformers 4)
    boolean scaled = root.path("scale_decoder_outputs").asBoolean(tied);
    RelativeBuckets buckets = new RelativeBuckets(
        BertConfig.optionalInt(root, "relative_attention_num_buckets", 32, file),
        BertConfig.optionalInt(root, "relative_attention_max_distance", 128, file));
    Parts.Head head = tied ? Parts.Head.TIED : Parts.Head.UNTIED;
    Parts enc = new Parts(Parts.Norm.RMS_NORM, Parts.NormPlace.PRE, Parts.Position.RELATIVE_BUCKETS, null, heads, false,
        false, Parts.Mask.BIDIRECTIONAL, 0, mlp, head, 1);
    Parts dec = new Parts(Parts.Norm.RMS_NORM, Parts.NormPlace.PRE, Parts.Position.RELATIVE_BUCKETS, null, heads, false,
        false, Parts.Mask.CAUSAL, 0, mlp, head, 1);
    return new EncoderDecoderConfig(Family.T5, BertConfig.requiredInt(root, "vocab_size", file), d, layers, decoderLayers,
        heads, heads, dkv, ff, ff, act, ConfigFields.finiteNumber(root, "layer_norm_epsilon", 1e-6, file), enc, dec,
        false, buckets, T5_LENGTH, scaled ? 1 / Math.sqrt(d) : 1, tied);
  }

  /** BartConfig's keys and defaults (bart-large's shape). */
  private static EncoderDecoderConfig bart(JsonNode root, Path file) {
    for (String key : new String[] {"normalize_before", "add_final_layer_norm"}) {
      if (root.path(key).asBoolean(false)) {
        throw new HeadScopeException("config.json: " + key + " is true; HeadScope runs BART as modeling_bart.py "
            + "has it (post-LayerNorm, no final norm; mBART is model_type \"mbart\").");
      }
    }
    int d = BertConfig.optionalInt(root, "d_model", 1024, file);
    int encHeads = BertConfig.optionalInt(root, "encoder_attention_heads", 16, file);
    int decHeads = BertConfig.optionalInt(root, "decoder_attention_heads", 16, file);
    if (d % encHeads != 0 || d % decHeads != 0) {
      throw new HeadScopeException("config.json: d_model " + d + " is not a multiple of the attention heads ("
          + encHeads + ", " + decHeads + ").");
    }
    if (encHeads != decHeads) {
      throw new HeadScopeException("config.json: encoder_attention_heads " + encHeads + " and decoder_attention_heads "
          + decHeads + " differ; HeadScope runs BARTs with one head size in both stacks.");
    }
    String act = root.path("activation_function").asText("gelu");
    Parts.Mlp mlp;
    if (act.equals("relu")) {
      mlp = Parts.Mlp.RELU;
    } else {
      BertConfig.Gelu.of(act); // refuses what is neither GELU nor ReLU
      mlp = Parts.Mlp.GELU;
    }
    boolean tied = root.path("tie_word_embeddings").asBoolean(true);
    double scale = root.path("scale_embedding").asBoolean(false) ? Math.sqrt(d) : 1;
    Parts.Head head = tied ? Parts.Head.TIED : Parts.Head.UNTIED;
    Parts enc = new Parts(Parts.Norm.LAYER_NORM, Parts.NormPlace.POST, Parts.Position.LEARNED, null, encHeads, true,
        true, Parts.Mask.BIDIRECTIONAL, 0, mlp, head, scale);
    Parts dec = new Parts(Parts.Norm.LAYER_NORM, Parts.NormPlace.POST, Parts.Position.LEARNED, null, decHeads, true,
        true, Parts.Mask.CAUSAL, 0, mlp, head, scale);
    // nn.LayerNorm's default epsilon: BartConfig has no key for it
    return new EncoderDecoderConfig(Family.BART, BertConfig.requiredInt(root, "vocab_size", file), d,
        BertConfig.optionalInt(root, "encoder_layers", 12, file), BertConfig.optionalInt(root, "decoder_layers", 12, file),
        encHeads, decHeads, d / encHeads, BertConfig.optionalInt(root, "encoder_ffn_dim", 4096, file),
        BertConfig.optionalInt(root, "decoder_ffn_dim", 4096, file), act, 1e-5, enc, dec, true, null,
        BertConfig.optionalInt(root, "max_position_embeddings", 1024, file), 1, tied);
  }
}
