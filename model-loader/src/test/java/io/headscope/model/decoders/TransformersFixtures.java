package io.headscope.model.decoders;

import com.fasterxml.jackson.databind.JsonNode;
import io.headscope.model.testing.HubFixture;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The decoders' transformers fixtures (see {@link TransformersParityTest}) for tests elsewhere (the CLI's): the
 * folder, the text, transformers' ids and maps, and for every map entry the bound {@code 8 sigma + |R - X|} that
 * test derives.
 */
public final class TransformersFixtures {
  private TransformersFixtures() {}

  public static Path folder(String name) {
    return HubFixture.named(name).folder;
  }

  public static String text(String name) {
    return HubFixture.named(name).text("text");
  }

  public static long[] ids(String name) {
    return HubFixture.named(name).ids("ids");
  }

  /** {@code [0]}: transformers' maps; {@code [1]}: each entry's bound ({@link TransformersParityTest}). */
  public static double[][][][][] mapsAndBounds(String name) {
    HubFixture f = HubFixture.named(name);
    double[][][][] x = f.maps("attention");
    Reference r = reference(f, f.ids("ids"));
    return HubFixture.withParityBounds(x, r.attention(), r.sigma(), DecoderReference.LAMBDA);
  }

  public record Reference(double[][][][] attention, double[][][][] sigma, double[] logits) {}

  /** Our float64 reference with its float32 error estimate, on the weights the fixture stores. */
  static Reference reference(HubFixture f, long[] ids) {
    JsonNode c = f.config;
    String type = c.get("model_type").asText();
    Map<String, TinyDecoder.Tensor> w = new LinkedHashMap<>();
    f.weights.forEach((k, v) -> w.put(k, new TinyDecoder.Tensor(v.values(), v.shape())));
    int layers = c.get("num_hidden_layers").asInt();
    int hidden = c.get("hidden_size").asInt();
    int heads = c.get("num_attention_heads").asInt();
    int inter = c.get("intermediate_size").asInt();
    int vocab = c.get("vocab_size").asInt();
    JsonNode rope = c.path("rope_parameters");
    switch (type) {
      case "gpt_neox" -> {
        TinyNeoxModern.Spec s = new TinyNeoxModern.Spec(type, layers, hidden, heads, inter, vocab, "F32",
            rope.get("partial_rotary_factor").asDouble(), c.get("use_parallel_residual").asBoolean(),
            rope.get("rope_theta").asDouble(), 0, 0, 0, c.get("layer_norm_eps").asDouble());
        NeoxModernReference.Result r = NeoxModernReference.neox(
            new TinyNeoxModern(s, w, c.path("tie_word_embeddings").asBoolean(false)), ids, ids.length - 1);
        return new Reference(r.attention(), r.sigma(), r.logits());
      }
      case "modernbert" -> {
        JsonNode types = c.get("layer_types");
        int every = 1;
        while (every < types.size() && types.get(every).asText().equals("sliding_attention")) {
          every++;
        }
        TinyNeoxModern.Spec s = new TinyNeoxModern.Spec(type, layers, hidden, heads, inter, vocab, "F32", 1, false,
            rope.path("full_attention").get("rope_theta").asDouble(),
            rope.path("sliding_attention").get("rope_theta").asDouble(), every, c.get("local_attention").asInt(),
            c.get("norm_eps").asDouble());
        NeoxModernReference.Result r = NeoxModernReference.modernBert(new TinyNeoxModern(s, w, true), ids,
            f.expected.get("logits_position").asInt());
        return new Reference(r.attention(), r.sigma(), r.logits());
      }
      default -> {
        double[] llama3 = null;
        if (rope.path("rope_type").asText().equals("llama3")) {
          llama3 = new double[] {rope.get("factor").asDouble(), rope.get("low_freq_factor").asDouble(),
              rope.get("high_freq_factor").asDouble(), rope.get("original_max_position_embeddings").asDouble()};
        }
        int window = c.hasNonNull("sliding_window") && type.equals("mistral") ? c.get("sliding_window").asInt() : 0;
        boolean tied = c.path("tie_word_embeddings").asBoolean(false);
        TinyDecoder.Spec s = new TinyDecoder.Spec(type, layers, hidden, heads, c.get("num_key_value_heads").asInt(),
            inter, vocab, rope.get("rope_theta").asDouble(), llama3, window,
            w.containsKey("model.layers.0.self_attn.q_proj.bias"), tied, "F32", 1, c.get("rms_norm_eps").asDouble(),
            c.path("head_dim").asInt(hidden / heads));
        DecoderReference.Result r = DecoderReference.run(new TinyDecoder(s, w), ids);
        return new Reference(r.attention(), r.sigma(), r.lastLogits());
      }
    }
  }
}
