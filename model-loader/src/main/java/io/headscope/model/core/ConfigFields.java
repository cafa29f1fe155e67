package io.headscope.model.core;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;

/**
 * What a {@code config.json} says beyond the shape: the fields that change what transformers computes
 * for a family but that HeadScope's forward pass does not model are refused, naming the field, instead
 * of ignored (a model run without them gives maps that are wrong without a word). The family readers
 * ({@link FamilyConfigs}) call {@link #refuseUnmodelled}; docs/METHODS.md lists the fields.
 *
 * <p>Values are judged as transformers judges them, with Python's truth: {@code "is_decoder": 1} or
 * {@code "yes"} is true there, so it is here. {@code NaN} and {@code Infinity}, which Python's
 * {@code json} writes, are read as numbers so that the field they stand in can be named.
 */
public final class ConfigFields {
  private ConfigFields() {}

  /** A reader that takes Python's {@code NaN}, {@code Infinity} and {@code -Infinity} as numbers. */
  static final ObjectMapper JSON = JsonMapper.builder().enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();

  /** The families whose models turn causal under {@code is_decoder} (BertModel and the models copied from it). */
  private static final Set<Family> DECODER_CAPABLE = Set.of(Family.BERT, Family.ROBERTA, Family.XLM_ROBERTA,
      Family.ELECTRA);

  /**
   * Refuses the fields of {@code root} that change {@code family}'s computation and are not modelled:
   * {@code is_decoder} (BERT, RoBERTa, XLM-R, ELECTRA: a causal mask), {@code add_cross_attention}
   * (layers that also attend to an encoder's states), {@code position_embedding_type} other than
   * {@code absolute} (the BERT-like families and ALBERT: a distance term in every score) and a non-empty
   * {@code pruned_heads} (layers with fewer heads than {@code num_attention_heads}). DistilBERT and ALBERT
   * build their masks without {@code is_decoder}, and GPT-2 is causal anyway, so there it changes nothing.
   */
  static void refuseUnmodelled(JsonNode root, Family family, Path file) {
    if (DECODER_CAPABLE.contains(family) && truthy(root.get("is_decoder"))) {
      throw new HeadScopeException(file + ": \"is_decoder\" is " + root.get("is_decoder") + ": transformers runs this "
          + family.displayName + " as a decoder, each token attending only to itself and the tokens before it; "
          + "HeadScope runs " + family.displayName + " bidirectionally, so its maps would be wrong.");
    }
    if (truthy(root.get("add_cross_attention"))) {
      throw new HeadScopeException(file + ": \"add_cross_attention\" is " + root.get("add_cross_attention")
          + ": the layers also attend to an encoder's states (the decoder of an encoder-decoder); HeadScope does "
          + "not model cross-attention.");
    }
    JsonNode position = root.get("position_embedding_type");
    if (family != Family.DISTILBERT && family != Family.GPT2 && position != null && !position.isNull()
        && !"absolute".equals(position.asText())) {
      throw new HeadScopeException(file + ": \"position_embedding_type\" is " + position + ": HeadScope models "
          + "absolute position embeddings only (relative ones add a term for each distance to every score).");
    }
    if (truthy(root.get("pruned_heads"))) {
      throw new HeadScopeException(file + ": \"pruned_heads\" is " + root.get("pruned_heads") + ": layers with fewer "
          + "heads than num_attention_heads are not modelled.");
    }
  }

  /**
   * Whether the output embeddings (the LM head's decoder) are the word embeddings: {@code
   * tie_word_embeddings}, true when absent (PretrainedConfig's default). When false, transformers
   * reads the decoder's own stored weights ({@code cls.predictions.decoder.weight}, {@code lm_head.weight}).
   */
  public static boolean tiedWordEmbeddings(Path configJson) {
    JsonNode root;
    try {
      root = JSON.readTree(configJson.toFile());
    } catch (IOException e) {
      throw new HeadScopeException(configJson + " is not valid JSON: " + e.getMessage().lines().findFirst().orElse(""), e);
    }
    JsonNode tie = root == null ? null : root.get("tie_word_embeddings");
    return tie == null || truthy(tie);
  }

  /**
   * The activation named under {@code key} (BERT's {@code hidden_act}, DistilBERT's {@code activation},
   * GPT-2's {@code activation_function}), or {@code absent}; refused naming the key the file uses.
   */
  static String activation(JsonNode root, String key, String absent, Path file) {
    JsonNode v = root.get(key);
    String act = v == null || v.isNull() ? absent : v.asText();
    try {
      BertConfig.Gelu.of(act);
    } catch (HeadScopeException e) {
      throw new HeadScopeException(file + ": " + key + " " + (v != null && v.isTextual() ? "\"" + act + "\"" : v)
          + " is not supported (use gelu, gelu_new or gelu_pytorch_tanh).");
    }
    return act;
  }

  /**
   * A real number under {@code key}, or {@code absent}; NaN and the infinities are refused naming the
   * field (a NaN epsilon would make every LayerNorm NaN).
   */
  static double finiteNumber(JsonNode root, String key, double absent, Path file) {
    JsonNode v = root.get(key);
    if (v == null || v.isNull()) {
      return absent;
    }
    if (!v.isNumber()) {
      throw new HeadScopeException(file + ": \"" + key + "\" must be a number, got " + v + ".");
    }
    double d = v.asDouble();
    if (!Double.isFinite(d)) {
      throw new HeadScopeException(file + ": \"" + key + "\" is " + v.asText() + ", not a finite number.");
    }
    return d;
  }

  /** Python's truth of a JSON value: absent, null, false, 0, "", [] and {} are false. */
  static boolean truthy(JsonNode v) {
    if (v == null || v.isNull() || v.isMissingNode()) {
      return false;
    }
    if (v.isBoolean()) {
      return v.booleanValue();
    }
    if (v.isNumber()) {
      return v.asDouble() != 0; // NaN != 0: true, as in Python
    }
    if (v.isTextual()) {
      return !v.asText().isEmpty();
    }
    return v.size() > 0;
  }
}
