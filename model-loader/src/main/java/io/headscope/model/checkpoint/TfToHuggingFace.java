package io.headscope.model.checkpoint;

import io.headscope.model.core.HeadScopeException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Renames Google's TensorFlow BERT variables to Hugging Face {@code BertForMaskedLM} names.
 *
 * <p>TensorFlow stores dense kernels input-major ({@code y = x W}), the transpose of a PyTorch
 * {@code Linear.weight}; every {@code kernel} is transposed here, once, at conversion time. The MLM
 * decoder is tied to the word embeddings and has no tensor of its own.
 */
public final class TfToHuggingFace {
  private static final Pattern LAYER =
      Pattern.compile("(?:module/)?bert/encoder/layer_(\\d+)/(.+)/(kernel|bias|gamma|beta)");

  private TfToHuggingFace() {}

  public static List<FloatTensor> convert(Map<String, FloatTensor> tf) {
    List<FloatTensor> out = new ArrayList<>();
    for (FloatTensor t : tf.values()) {
      String hf = hfName(t.name());
      if (hf == null) {
        continue; // optimizer slots, global_step, ...
      }
      out.add(t.name().endsWith("/kernel") ? t.transposed(hf) : t.renamed(hf));
    }
    if (out.isEmpty()) {
      throw new HeadScopeException("The TensorFlow checkpoint holds no BERT variables.");
    }
    return out;
  }

  /** The Hugging Face name of a TensorFlow variable, or null if it is not part of the model. */
  public static String hfName(String tfName) {
    String n = tfName.startsWith("module/") ? tfName.substring("module/".length()) : tfName;
    if (n.contains("adam_") || n.contains("Adam") || n.equals("global_step")) {
      return null;
    }
    Matcher m = LAYER.matcher(n);
    if (m.matches()) {
      return "bert.encoder.layer." + m.group(1) + "." + path(m.group(2)) + "." + param(m.group(3));
    }
    return switch (n) {
      case "bert/embeddings/word_embeddings" -> "bert.embeddings.word_embeddings.weight";
      case "bert/embeddings/position_embeddings" -> "bert.embeddings.position_embeddings.weight";
      case "bert/embeddings/token_type_embeddings" -> "bert.embeddings.token_type_embeddings.weight";
      case "bert/embeddings/LayerNorm/gamma" -> "bert.embeddings.LayerNorm.weight";
      case "bert/embeddings/LayerNorm/beta" -> "bert.embeddings.LayerNorm.bias";
      case "bert/pooler/dense/kernel" -> "bert.pooler.dense.weight";
      case "bert/pooler/dense/bias" -> "bert.pooler.dense.bias";
      case "cls/predictions/transform/dense/kernel" -> "cls.predictions.transform.dense.weight";
      case "cls/predictions/transform/dense/bias" -> "cls.predictions.transform.dense.bias";
      case "cls/predictions/transform/LayerNorm/gamma" -> "cls.predictions.transform.LayerNorm.weight";
      case "cls/predictions/transform/LayerNorm/beta" -> "cls.predictions.transform.LayerNorm.bias";
      case "cls/predictions/output_bias" -> "cls.predictions.bias";
      case "cls/seq_relationship/output_weights" -> "cls.seq_relationship.weight";
      case "cls/seq_relationship/output_bias" -> "cls.seq_relationship.bias";
      default -> null;
    };
  }

  private static String path(String tfPath) {
    return tfPath.replace('/', '.');
  }

  private static String param(String tfParam) {
    return switch (tfParam) {
      case "kernel", "gamma" -> "weight";
      default -> "bias";
    };
  }
}
