package io.headscope.model.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A model's shape and numerics, with the field names of Hugging Face's BERT {@code config.json}; other
 * families' configs ({@link Family}) are read into the same fields ({@link #read}).
 *
 * <p>Checks itself on construction, so an impossible config fails where it is read, with a message
 * naming the key, not deep inside a matrix product.
 *
 * @param hiddenAct {@code gelu} (exact, erf) or {@code gelu_new}/{@code gelu_pytorch_tanh} (tanh)
 * @param typeVocabSize token types; 0 for a family without them (DistilBERT, GPT-2)
 * @param id2label class names of a sequence-classification head, in id order (empty when none)
 * @param family what the forward pass changes from BERT's
 * @param embeddingSize the width of the token embeddings: {@code hiddenSize}, or less when a projection
 *     follows them (ELECTRA, ALBERT)
 * @param positionOffset the position id of the first token (RoBERTa and XLM-R: {@code pad_token_id + 1});
 *     inputs may have {@code maxPositionEmbeddings - positionOffset} tokens
 * @param parts what the forward pass is made of ({@link Parts}): derived from the family for BERT's kin
 *     and GPT-2, read from the config for the rotary decoders (Llama, Qwen2, Mistral)
 */
public record BertConfig(
    int vocabSize,
    int hiddenSize,
    int numHiddenLayers,
    int numAttentionHeads,
    int intermediateSize,
    String hiddenAct,
    int maxPositionEmbeddings,
    int typeVocabSize,
    double layerNormEps,
    List<String> id2label,
    Family family,
    int embeddingSize,
    int positionOffset,
    Parts parts) {

  /** A family whose parts follow from the family alone (BERT's kin, GPT-2). */
  public BertConfig(int vocabSize, int hiddenSize, int numHiddenLayers, int numAttentionHeads, int intermediateSize,
      String hiddenAct, int maxPositionEmbeddings, int typeVocabSize, double layerNormEps, List<String> id2label,
      Family family, int embeddingSize, int positionOffset) {
    this(vocabSize, hiddenSize, numHiddenLayers, numAttentionHeads, intermediateSize, hiddenAct, maxPositionEmbeddings,
        typeVocabSize, layerNormEps, id2label, family, embeddingSize, positionOffset, Parts.of(family, numAttentionHeads));
  }

  /** A BERT. */
  public BertConfig(int vocabSize, int hiddenSize, int numHiddenLayers, int numAttentionHeads, int intermediateSize,
      String hiddenAct, int maxPositionEmbeddings, int typeVocabSize, double layerNormEps, List<String> id2label) {
    this(vocabSize, hiddenSize, numHiddenLayers, numAttentionHeads, intermediateSize, hiddenAct,
        maxPositionEmbeddings, typeVocabSize, layerNormEps, id2label, Family.BERT, hiddenSize, 0);
  }

  public BertConfig {
    // Bounds far above any BERT (bert-large: 24 layers, 1024 hidden, 4096 intermediate, 512 positions),
    // so that a mistyped config fails here, not as an OutOfMemoryError while allocating.
    inRange("vocab_size", vocabSize, 10_000_000);
    inRange("hidden_size", hiddenSize, 65_536);
    inRange("num_hidden_layers", numHiddenLayers, 1_000);
    inRange("num_attention_heads", numAttentionHeads, 65_536);
    inRange("intermediate_size", intermediateSize, 1 << 20);
    inRange("max_position_embeddings", maxPositionEmbeddings, 1 << 20);
    if (family == null) {
      throw new IllegalArgumentException("no family");
    }
    if (family.hasTokenTypes()) {
      inRange("type_vocab_size", typeVocabSize, 1_000);
    } else if (typeVocabSize != 0) {
      throw new IllegalArgumentException(family.displayName + " has no token types");
    }
    inRange("embedding_size", embeddingSize, 65_536);
    if (positionOffset < 0 || positionOffset >= maxPositionEmbeddings) {
      throw new HeadScopeException("config.json: the first position id (" + positionOffset
          + ", from pad_token_id) must lie below max_position_embeddings " + maxPositionEmbeddings + ".");
    }
    if (hiddenSize % numAttentionHeads != 0) {
      throw new HeadScopeException(
          "config.json: hidden_size " + hiddenSize + " is not a multiple of num_attention_heads "
              + numAttentionHeads + ".");
    }
    if (!(layerNormEps > 0 && layerNormEps < 1)) {
      throw new HeadScopeException("config.json: layer_norm_eps must be in (0, 1), got " + layerNormEps + ".");
    }
    if (parts == null) {
      throw new IllegalArgumentException("no parts");
    }
    inRange("num_key_value_heads", parts.keyValueHeads(), numAttentionHeads);
    if (numAttentionHeads % parts.keyValueHeads() != 0) {
      throw new HeadScopeException("config.json: num_attention_heads " + numAttentionHeads
          + " is not a multiple of num_key_value_heads " + parts.keyValueHeads() + ".");
    }
    if (parts.mlp() != Parts.Mlp.GATED_SILU) {
      Gelu.of(hiddenAct); // fails on an activation we do not implement
    } else if (!"silu".equals(hiddenAct)) {
      throw new HeadScopeException("config.json: hidden_act \"" + hiddenAct + "\" is not supported in a gated MLP "
          + "(HeadScope runs silu, SwiGLU).");
    }
    id2label = List.copyOf(id2label);
  }

  /** The configuration of Google's bert-base (uncased vocabulary by default). */
  public static BertConfig bertBase(int vocabSize, String hiddenAct) {
    return new BertConfig(vocabSize, 768, 12, 12, 3072, hiddenAct, 512, 2, 1e-12, List.of());
  }

  /** {@code head_dim} where the config gives one apart from the split ({@link Parts#withHeadDim}), else the split. */
  public int headSize() {
    return parts.headDim() > 0 ? parts.headDim() : hiddenSize / numAttentionHeads;
  }

  /** The most tokens an input may have, special tokens included. */
  public int maxTokens() {
    return maxPositionEmbeddings - positionOffset;
  }

  /** The GELU this config asks for. */
  public Gelu gelu() {
    return Gelu.of(hiddenAct);
  }

  public BertConfig withHiddenAct(String act) {
    return new BertConfig(vocabSize, hiddenSize, numHiddenLayers, numAttentionHeads, intermediateSize,
        act, maxPositionEmbeddings, typeVocabSize, layerNormEps, id2label, family, embeddingSize, positionOffset, parts);
  }

  /** The two GELUs found in BERT checkpoints. */
  public enum Gelu {
    /** {@code x Φ(x)} with the exact normal CDF, Hugging Face's {@code gelu}. */
    ERF,
    /** Google's original tanh approximation, Hugging Face's {@code gelu_new}. */
    TANH;

    public static Gelu of(String hiddenAct) {
      return switch (hiddenAct == null ? "" : hiddenAct) {
        case "gelu", "gelu_python" -> ERF;
        case "gelu_new", "gelu_pytorch_tanh", "gelu_fast" -> TANH;
        default -> throw new HeadScopeException(
            "config.json: hidden_act \"" + hiddenAct + "\" is not supported (use gelu, gelu_new or gelu_pytorch_tanh).");
      };
    }
  }

  // --- config.json ---------------------------------------------------------------------------

  private static final ObjectMapper JSON = new ObjectMapper();

  public static BertConfig read(Path configJson) {
    JsonNode root;
    try {
      root = ConfigFields.JSON.readTree(configJson.toFile()); // NaN read as a number, to be named where it stands
    } catch (IOException e) {
      throw new HeadScopeException(configJson + " is not valid JSON: " + firstLine(e.getMessage()), e);
    }
    if (root == null || !root.isObject()) {
      throw new HeadScopeException(configJson + " is not a JSON object.");
    }
    EncoderDecoderConfig.Family twoStacks = EncoderDecoderConfig.familyOf(root.path("model_type").asText(""));
    if (twoStacks != null) { // T5, BART: read by EncoderDecoderConfig, run by their own engine
      throw new HeadScopeException(EncoderDecoderConfig.notOneStack(configJson, twoStacks));
    }
    Family family = Family.of(root.path("model_type").asText("bert"), configJson);
    List<String> labels = new java.util.ArrayList<>();
    JsonNode id2label = root.path("id2label");
    for (int i = 0; id2label.has(Integer.toString(i)); i++) {
      labels.add(id2label.get(Integer.toString(i)).asText());
    }
    try {
      return switch (family) {
        case DISTILBERT -> FamilyConfigs.distilBert(root, configJson, labels);
        case GPT2 -> FamilyConfigs.gpt2(root, configJson, labels);
        case LLAMA, QWEN2, MISTRAL, GEMMA -> DecoderConfigs.read(family, root, configJson, labels);
        case GPT_NEOX -> NeoxModernConfigs.gptNeox(root, configJson, labels);
        case MODERNBERT -> NeoxModernConfigs.modernBert(root, configJson, labels);
        default -> FamilyConfigs.bertLike(family, root, configJson, labels);
      };
    } catch (HeadScopeException e) {
      String m = e.getMessage();
      // the constructor's checks say "config.json: ..."; name the actual file, once
      throw m.startsWith("config.json") ? new HeadScopeException(configJson + m.substring("config.json".length()), e) : e;
    }
  }

  public void write(Path configJson) throws IOException {
    if (family != Family.BERT) {
      throw new HeadScopeException("HeadScope writes BERT configs only; this is a " + family.displayName + ".");
    }
    ObjectNode root = JSON.createObjectNode();
    root.putArray("architectures").add(id2label.isEmpty() ? "BertForMaskedLM" : "BertForSequenceClassification");
    root.put("model_type", "bert");
    root.put("vocab_size", vocabSize);
    root.put("hidden_size", hiddenSize);
    root.put("num_hidden_layers", numHiddenLayers);
    root.put("num_attention_heads", numAttentionHeads);
    root.put("intermediate_size", intermediateSize);
    root.put("hidden_act", hiddenAct);
    root.put("max_position_embeddings", maxPositionEmbeddings);
    root.put("type_vocab_size", typeVocabSize);
    root.put("layer_norm_eps", layerNormEps);
    if (!id2label.isEmpty()) {
      Map<String, String> labels = new LinkedHashMap<>();
      for (int i = 0; i < id2label.size(); i++) {
        labels.put(Integer.toString(i), id2label.get(i));
      }
      root.set("id2label", JSON.valueToTree(labels));
      Map<String, Integer> ids = new LinkedHashMap<>();
      for (int i = 0; i < id2label.size(); i++) {
        ids.put(id2label.get(i), i);
      }
      root.set("label2id", JSON.valueToTree(ids)); // Hugging Face writes both directions
    }
    Files.writeString(configJson, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root));
  }

  static int requiredInt(JsonNode root, String key, Path file) {
    JsonNode v = root.get(key);
    if (v == null) {
      throw new HeadScopeException(file + " has no integer \"" + key + "\".");
    }
    return integer(v, key, file);
  }

  static int optionalInt(JsonNode root, String key, int absent, Path file) {
    JsonNode v = root.get(key);
    return v == null || v.isNull() ? absent : integer(v, key, file);
  }

  /** A whole number that fits an int; 2.5, "12" and 1e12 are refused (12.0 is read as 12). */
  private static int integer(JsonNode v, String key, Path file) {
    if (v.isNumber() && !Double.isFinite(v.asDouble())) {
      throw new HeadScopeException(file + ": \"" + key + "\" is " + v.asText() + ", not a finite number.");
    }
    boolean whole = v.isIntegralNumber() || v.isFloatingPointNumber() && v.asDouble() == Math.rint(v.asDouble());
    if (!whole || !v.canConvertToInt() || v.isFloatingPointNumber() && Math.abs(v.asDouble()) > Integer.MAX_VALUE) {
      throw new HeadScopeException(file + ": \"" + key + "\" must be a whole number, got " + v + ".");
    }
    return v.isIntegralNumber() ? v.asInt() : (int) v.asDouble();
  }

  private static void inRange(String key, int v, int max) {
    if (v <= 0) {
      throw new HeadScopeException("config.json: " + key + " must be positive, got " + v + ".");
    }
    if (v > max) {
      throw new HeadScopeException("config.json: " + key + " is " + v + ", more than HeadScope accepts (" + max
          + "); is the config right?");
    }
  }

  private static String firstLine(String s) {
    return s == null ? "" : s.lines().findFirst().orElse("");
  }
}
