package io.headscope.model.decoders;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.HubFixture;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The decoder families and ModernBERT held to transformers itself: checkpoints that transformers 5.18 built from
 * each family's config class, saved in the hub's layout with a tokenizer of the family's kind, and ran in float64
 * (src/test/transformers/make_fixtures.py; its README says how to rerun it). Each folder is opened through the
 * doors {@code ./headscope attention --model DIR} uses, and the stored text must give transformers' ids, and every
 * map of every layer and query head transformers' map within a derived bound.
 *
 * <p>The bound. The engine runs float32 and transformers float64, so they differ by the engine's rounding. Our own
 * float64 references ({@link DecoderReference}, {@link NeoxModernReference}), run here on the very weights the
 * fixture stores, carry beside each map entry the standard deviation {@code sigma} of a float32 computation's error
 * (first-order probabilistic propagation, as in {@link DecoderFamiliesTest}), and {@code LAMBDA = 8} of them is the
 * engine's allowance there. Between the reference {@code R} and transformers {@code X} (both float64) the triangle
 * inequality gives {@code |E - X| <= |E - R| + |R - X| <= 8 sigma + |R - X|}, and {@code |R - X|} is held on its
 * own to {@link #FLOAT64_AGREEMENT}. Two float64 computations of the same equations would agree to about 1e-15
 * (BART's do), but transformers' float64 model keeps a few float32 islands: the eager softmax ({@code
 * softmax(..., dtype=torch.float32)}), the RMSNorms ({@code hidden_states.to(torch.float32)}) and the rotary angles
 * ({@code inv_freq}, {@code position_ids.float()}). Each rounds relatively by 2^-24 and moves a map entry by a
 * few 1e-8 per layer (1.4e-7 at most measured here), so 1e-6 holds them with room while a misread equation moves
 * a map by far more (a wrong window, rotary split or norm: 1e-3 and up). Every bound used is under the
 * issue's 1e-4.
 */
class TransformersParityTest {
  /** How far two float64 computations of the same equations may drift (see the class comment). */
  static final double FLOAT64_AGREEMENT = 1e-6;

  @TempDir Path cache;

  @ParameterizedTest
  @ValueSource(strings = {"llama-bf16-sharded", "qwen2-fp16-tied", "mistral-window3", "gemma-headdim12-mqa",
      "gpt_neox-parallel", "gpt_neox-sequential", "modernbert-local4"})
  void mapsAndIdsAreTransformers(String name) {
    HubFixture f = HubFixture.named(name);
    Outcome o = compare(f, f.folder, true);
    System.out.printf("%s: max |engine - transformers| %.3g, widest derived bound %.3g, max |reference - "
        + "transformers| %.3g%n", name, o.worst, o.widest, o.drift);
    assertThat(o.outside).as("entries outside their bound").isZero();
    assertThat(o.widest).as("the derived bound itself").isLessThan(1e-4);
  }

  /**
   * The check can fail: the same checkpoints with one config number misread (a window one key wider, Qwen2's
   * rope_theta at Llama's 10000 rather than 1e6, ModernBERT's local window doubled) put maps far outside the bound.
   */
  @ParameterizedTest
  @ValueSource(strings = {"mistral-window3:\"sliding_window\": 3:\"sliding_window\": 4",
      "qwen2-fp16-tied:\"rope_theta\": 1000000.0:\"rope_theta\": 10000.0",
      "modernbert-local4:\"local_attention\": 4:\"local_attention\": 8"})
  void aMisreadConfigIsCaught(String mutation) throws Exception {
    String[] m = mutation.split(":", 2);
    String[] edit = m[1].split(":(?=\")", 2);
    HubFixture f = HubFixture.named(m[0]);
    Path copy = cache.resolve("mutated-" + m[0]);
    Files.createDirectories(copy);
    try (var files = Files.list(f.folder)) {
      for (Path p : files.toList()) {
        Files.copy(p, copy.resolve(p.getFileName()));
      }
    }
    String config = Files.readString(copy.resolve("config.json"));
    assertThat(config).contains(edit[0]);
    Files.writeString(copy.resolve("config.json"), config.replace(edit[0], edit[1]));
    Outcome o = compare(f, copy, false);
    System.out.printf("%s misread: max |engine - transformers| %.3g, %d entries outside their bound%n", m[0], o.worst,
        o.outside);
    assertThat(o.outside).isPositive();
    assertThat(o.worst).isGreaterThan(1e-3);
  }

  /**
   * Composition scores read every head's own weights: in a grouped-query model query head h reads key/value head
   * {@code h / (H / K)} (transformers' {@code repeat_kv}), so its {@code W_K} and {@code W_V} are that head's rows of
   * {@code k_proj} and {@code v_proj} as the checkpoint stores them (read here by the fixture's own decoder), exactly.
   */
  @org.junit.jupiter.api.Test
  void headWeightsOfAGroupedQueryModelAreTheCheckpointsPerKeyValueHead() {
    HubFixture f = HubFixture.named("llama-bf16-sharded");
    try (BertModel model = BertModel.load(new ModelRepository(cache).folder(f.folder))) {
      io.headscope.model.engine.HeadWeights w = model.headWeights();
      int heads = f.config.get("num_attention_heads").asInt();
      int group = heads / f.config.get("num_key_value_heads").asInt();
      int d = f.config.get("hidden_size").asInt();
      int dh = d / heads;
      for (int l = 0; l < w.layers(); l++) {
        String p = "model.layers." + l + ".self_attn.";
        for (int h = 0; h < heads; h++) {
          double[][] wq = w.wq(l, h);
          double[][] wk = w.wk(l, h);
          double[][] wv = w.wv(l, h);
          double[][] wo = w.wo(l, h);
          for (int i = 0; i < d; i++) {
            for (int a = 0; a < dh; a++) {
              assertThat(wq[i][a]).isEqualTo(f.weights.get(p + "q_proj.weight").values()[(h * dh + a) * d + i]);
              assertThat(wk[i][a]).as("layer %d head %d W_K", l, h)
                  .isEqualTo(f.weights.get(p + "k_proj.weight").values()[((h / group) * dh + a) * d + i]);
              assertThat(wv[i][a]).as("layer %d head %d W_V", l, h)
                  .isEqualTo(f.weights.get(p + "v_proj.weight").values()[((h / group) * dh + a) * d + i]);
              assertThat(wo[a][i]).isEqualTo(f.weights.get(p + "o_proj.weight").values()[i * heads * dh + h * dh + a]);
            }
          }
        }
      }
    }
  }

  record Outcome(double worst, double widest, double drift, int outside) {}

  /** Opens {@code folder} as the CLI does and compares its maps with the fixture's, entry by entry. */
  private Outcome compare(HubFixture f, Path folder, boolean strict) {
    String name = f.folder.getFileName().toString();
    try (BertModel model = BertModel.load(new ModelRepository(cache.resolve("cache")).folder(folder))) {
      Encoding e = model.encode(f.text("text"), null);
      assertThat(e.ids()).as(name + " ids").containsExactly(f.ids("ids"));
      // the tokens as the vocabulary spells them (transformers' encoding shows ModernBERT's lstrip [MASK] with the
      // space it took; convert_ids_to_tokens, which BertViz shows, does not)
      assertThat(e.tokens()).as(name + " tokens").containsExactlyElementsOf(f.tokens("tokens").stream()
          .map(String::strip).toList());
      AttentionTrace t = model.maps(List.of(e)).get(0);
      double[][][][] expected = f.maps("attention");
      TransformersFixtures.Reference r = TransformersFixtures.reference(f, e.ids());
      assertThat(t.layers()).isEqualTo(expected.length);
      assertThat(t.heads()).as("one map per query head").isEqualTo(expected[0].length);
      double worst = 0;
      double widest = 0;
      double drift = 0;
      int outside = 0;
      for (int l = 0; l < expected.length; l++) {
        for (int h = 0; h < expected[l].length; h++) {
          float[][] map = t.map(new Head(l, h));
          assertThat(map.length).isEqualTo(expected[l][h].length);
          for (int q = 0; q < map.length; q++) {
            for (int k = 0; k < map.length; k++) {
              double x = expected[l][h][q][k];
              double between = Math.abs(r.attention()[l][h][q][k] - x);
              assertThat(between).as("%s reference vs transformers, layer %d head %d query %d key %d", name, l, h, q, k)
                  .isLessThanOrEqualTo(FLOAT64_AGREEMENT);
              double bound = DecoderReference.LAMBDA * r.sigma()[l][h][q][k] + between;
              double diff = Math.abs(map[q][k] - x);
              if (strict) {
                assertThat(diff).as("%s layer %d head %d query %d key %d", name, l, h, q, k).isLessThanOrEqualTo(bound);
              }
              outside += diff > bound ? 1 : 0;
              worst = Math.max(worst, diff);
              widest = Math.max(widest, bound);
              drift = Math.max(drift, between);
            }
          }
        }
      }
      if (strict) {
        nextTokenIsTransformers(f, model, e, r);
      }
      return new Outcome(worst, widest, drift, outside);
    }
  }

  /**
   * The logits the app reads (the next token after the last position; ModernBERT's at [MASK]): our reference's within
   * {@link #FLOAT64_AGREEMENT} of the row's scale of transformers' (the float32 islands move the last hidden vector
   * relatively, so every logit by a share of the row's largest), which checks the heads' equations (tied, untied,
   * Gemma's, ModernBERT's prediction head); and the engine's most probable token transformers', wherever its top two
   * are more than 1e-3 of the row's scale apart (float32 moves these logits by about 1e-6 of it).
   */
  private static void nextTokenIsTransformers(HubFixture f, BertModel model, Encoding e,
      TransformersFixtures.Reference r) {
    double[] x = f.vector("logits_at");
    double scale = 1;
    for (double v : x) {
      scale = Math.max(scale, Math.abs(v));
    }
    for (int v = 0; v < x.length; v++) {
      assertThat(Math.abs(r.logits()[v] - x[v])).as("reference logit %d vs transformers", v)
          .isLessThanOrEqualTo(FLOAT64_AGREEMENT * scale);
    }
    long target = f.config.get("model_type").asText().equals("modernbert") ? model.tokenizer().maskId()
        : Readouts.NEXT_TOKEN;
    float[] p = model.run(RunRequest.of(e).read(Readouts.none().withMaskedLm(target))).maskedLm().get(0).get(0)
        .probabilities();
    int best = 0;
    for (int v = 1; v < x.length; v++) {
      best = x[v] > x[best] ? v : best;
    }
    double second = Double.NEGATIVE_INFINITY;
    for (int v = 0; v < x.length; v++) {
      second = v != best ? Math.max(second, x[v]) : second;
    }
    int engineBest = 0;
    for (int v = 1; v < p.length; v++) {
      engineBest = p[v] > p[engineBest] ? v : engineBest;
    }
    assertThat(p).as("a probability per token").hasSize(x.length);
    System.out.printf("%s: next token %d (engine %d), margin %.3g of the row's scale%n", f.folder.getFileName(), best,
        engineBest, (x[best] - second) / scale);
    if (x[best] - second > 1e-3 * scale) {
      assertThat(engineBest).as("the most probable token").isEqualTo(best);
    }
  }

}
