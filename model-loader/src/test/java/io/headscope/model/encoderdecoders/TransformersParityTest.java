package io.headscope.model.encoderdecoders;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.headscope.model.EncoderDecoderModel;
import io.headscope.model.EncoderDecoderTrace;
import io.headscope.model.core.EncoderDecoderMask;
import io.headscope.model.engine.EncoderDecoderRun;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.HubFixture;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * T5 (v1.0 and v1.1's gated-gelu) and BART held to transformers itself: checkpoints transformers 5.18 built,
 * saved and ran in float64 (src/test/transformers/make_fixtures.py), opened through the doors {@code ./headscope
 * attention --model DIR --text SOURCE --target TARGET} uses. The source and the target (tokenized with its own
 * special tokens, as the CLI's contract says) must give transformers' ids, and every encoder, decoder and cross
 * map transformers' map within the bound {@code 8 sigma + |R - X|} derived as in the decoders' {@code
 * TransformersParityTest}: {@code sigma} the float32 error {@link EncoderDecoderReference} propagates on the
 * fixture's own weights, {@code |R - X|} the reference's distance from transformers, both float64, held to
 * {@link #FLOAT64_AGREEMENT} (BART's agree to 1e-15; T5's to about 1e-7, because transformers' T5 takes the
 * RMS norm's variance and the softmax in float32 even in a float64 model).
 */
class TransformersParityTest {
  static final double FLOAT64_AGREEMENT = 1e-6;

  @TempDir Path cache;

  @ParameterizedTest
  @ValueSource(strings = {"t5-relu-tied", "t5v11-gated-untied-bf16", "bart"})
  void threeKindsOfMapsAndIdsAreTransformers(String name) {
    HubFixture f = HubFixture.named(name);
    try (EncoderDecoderModel model = EncoderDecoderModel.load(new ModelRepository(cache).folder(f.folder))) {
      EncoderDecoderTrace t = model.trace(f.text("text"), f.text("target"), EncoderDecoderMask.NONE, 3);
      assertThat(t.source().ids()).as(name + " source ids").containsExactly(f.ids("ids"));
      assertThat(t.target().ids()).as(name + " target ids").containsExactly(f.ids("target_ids"));
      assertThat(t.source().tokens()).as(name + " source tokens").containsExactlyElementsOf(f.tokens("tokens"));
      assertThat(t.target().tokens()).as(name + " target tokens").containsExactlyElementsOf(f.tokens("target_tokens"));
      EncoderDecoderReference.Result r = EncoderDecoderReference.run(reference(f), t.source().ids(), t.target().ids());
      double[] stats = new double[3];
      compare(name + " encoder", t.encoder(), f.maps("encoder_attention"), r.encoder(), r.encoderSigma(), stats);
      compare(name + " decoder", t.decoder(), f.maps("decoder_attention"), r.decoder(), r.decoderSigma(), stats);
      compare(name + " cross", t.cross(), f.maps("cross_attention"), r.cross(), r.crossSigma(), stats);
      System.out.printf("%s: max |engine - transformers| %.3g, widest derived bound %.3g, max |reference - "
          + "transformers| %.3g%n", name, stats[0], stats[1], stats[2]);
      assertThat(stats[1]).as("the derived bound itself").isLessThan(1e-4);
      // the logits at every target position (the app's next-token predictions), within the reference's bound in the
      // same way; and the most probable next token transformers', wherever its top two are further apart than that
      EncoderDecoderRun run = model.run(t.source().ids(), t.target().ids(), EncoderDecoderMask.NONE, true);
      double[][] x = f.matrix("logits");
      double worst = 0;
      double drift = 0;
      for (int i = 0; i < x.length; i++) {
        double widest = 0;
        // transformers' float32 islands move the decoder's last hidden vector relatively, so every logit of the
        // row by a share of the row's scale (its largest logit), not of its own size
        double scale = 1;
        for (double v : x[i]) {
          scale = Math.max(scale, Math.abs(v));
        }
        for (int v = 0; v < x[i].length; v++) {
          double between = Math.abs(r.logits()[i][v] - x[i][v]);
          assertThat(between).as("%s logit reference vs transformers, target %d token %d", name, i, v)
              .isLessThanOrEqualTo(FLOAT64_AGREEMENT * scale);
          double bound = EncoderDecoderReference.LAMBDA * r.logitsSigma()[i][v] + between;
          double diff = Math.abs(run.logits()[i][v] - x[i][v]);
          assertThat(diff).as("%s logit at target %d token %d", name, i, v).isLessThanOrEqualTo(bound);
          worst = Math.max(worst, diff);
          drift = Math.max(drift, between);
          widest = Math.max(widest, bound);
        }
        int best = argMax(x[i]);
        double second = Double.NEGATIVE_INFINITY;
        for (int v = 0; v < x[i].length; v++) {
          second = v != best ? Math.max(second, x[i][v]) : second;
        }
        if (x[i][best] - second > 2 * widest) {
          assertThat(t.next().get(i).get(0).id()).as("%s next token after target %d", name, i).isEqualTo(best);
        }
      }
      System.out.printf("%s: max |logit - transformers| %.3g, max |reference logit - transformers| %.3g, largest "
          + "|logit| %.3g%n", name, worst, drift, java.util.Arrays.stream(x).flatMapToDouble(java.util.Arrays::stream)
          .map(Math::abs).max().orElse(0));
    }
  }

  private static int argMax(double[] v) {
    int best = 0;
    for (int i = 1; i < v.length; i++) {
      best = v[i] > v[best] ? i : best;
    }
    return best;
  }

  /**
   * Our reference on the fixture's weights. A T5 that transformers 5 saved with {@code scale_decoder_outputs} false
   * (v1.1) has its head tied to {@code shared.weight} but unscaled: the reference, which scales a tied T5 head, is
   * given that head as an untied {@code lm_head.weight} holding the same values.
   */
  static TinyEncoderDecoder reference(HubFixture f) {
    Map<String, TinyEncoderDecoder.Tensor> w = weights(f);
    TinyEncoderDecoder.Spec s = spec(f);
    if (s.t5() && !f.config.path("scale_decoder_outputs").asBoolean(true)) {
      w.put("lm_head.weight", w.get("shared.weight"));
      s = new TinyEncoderDecoder.Spec(true, s.encoderLayers(), s.decoderLayers(), s.d(), s.heads(), s.dkv(), s.ff(),
          s.vocab(), s.gated(), false, false, s.buckets(), s.maxDistance(), 0, s.dtype());
    }
    return new TinyEncoderDecoder(s, w);
  }

  private static void compare(String what, float[][][][] engine, double[][][][] expected, double[][][][] ref,
      double[][][][] sigma, double[] stats) {
    assertThat(engine.length).as(what + " layers").isEqualTo(expected.length);
    for (int l = 0; l < expected.length; l++) {
      assertThat(engine[l].length).as(what + " heads").isEqualTo(expected[l].length);
      for (int h = 0; h < expected[l].length; h++) {
        assertThat(engine[l][h].length).as(what + " queries").isEqualTo(expected[l][h].length);
        for (int q = 0; q < expected[l][h].length; q++) {
          assertThat(engine[l][h][q].length).as(what + " keys").isEqualTo(expected[l][h][q].length);
          for (int k = 0; k < expected[l][h][q].length; k++) {
            double x = expected[l][h][q][k];
            double between = Math.abs(ref[l][h][q][k] - x);
            assertThat(between).as("%s reference vs transformers, layer %d head %d query %d key %d", what, l, h, q, k)
                .isLessThanOrEqualTo(FLOAT64_AGREEMENT);
            double bound = EncoderDecoderReference.LAMBDA * sigma[l][h][q][k] + between;
            double diff = Math.abs(engine[l][h][q][k] - x);
            assertThat(diff).as("%s layer %d head %d query %d key %d", what, l, h, q, k).isLessThanOrEqualTo(bound);
            stats[0] = Math.max(stats[0], diff);
            stats[1] = Math.max(stats[1], bound);
            stats[2] = Math.max(stats[2], between);
          }
        }
      }
    }
  }

  private static Map<String, TinyEncoderDecoder.Tensor> weights(HubFixture f) {
    Map<String, TinyEncoderDecoder.Tensor> w = new LinkedHashMap<>();
    f.weights.forEach((k, v) -> w.put(k, new TinyEncoderDecoder.Tensor(v.values(), v.shape())));
    return w;
  }

  /** The reference's spec from config.json as transformers wrote it (the head: tied, as transformers 5 ties T5's). */
  private static TinyEncoderDecoder.Spec spec(HubFixture f) {
    JsonNode c = f.config;
    int vocab = c.get("vocab_size").asInt();
    int d = c.get("d_model").asInt();
    if (c.get("model_type").asText().equals("t5")) {
      return new TinyEncoderDecoder.Spec(true, c.get("num_layers").asInt(), c.get("num_decoder_layers").asInt(), d,
          c.get("num_heads").asInt(), c.get("d_kv").asInt(), c.get("d_ff").asInt(), vocab,
          c.get("is_gated_act").asBoolean(), true, false, c.get("relative_attention_num_buckets").asInt(),
          c.get("relative_attention_max_distance").asInt(), 0, "F32");
    }
    int heads = c.get("encoder_attention_heads").asInt();
    return new TinyEncoderDecoder.Spec(false, c.get("encoder_layers").asInt(), c.get("decoder_layers").asInt(), d,
        heads, d / heads, c.get("encoder_ffn_dim").asInt(), vocab, false, true, c.get("scale_embedding").asBoolean(),
        0, 0, c.get("max_position_embeddings").asInt(), "F32");
  }
}
