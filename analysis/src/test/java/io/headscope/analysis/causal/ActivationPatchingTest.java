package io.headscope.analysis.causal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.Intervention;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.testing.Float32Bounds;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.testing.families.FamilyModelFolders;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Exact patching against plain runs of the engine with the value replaced by hand ({@link Intervention.Edit},
 * one run per cell, written here with their own index arithmetic), on a small random two-layer BERT.
 */
class ActivationPatchingTest {
  @TempDir static Path dir;
  static BertModel model;
  static PatchInputs pair;
  static TargetMetric metric;

  @BeforeAll
  static void load() {
    model = BertModel.load(TinyBert.create(2, 4, 11).writeTo(dir.resolve("tiny")));
    pair = PatchInputs.of(model, "the king said that [MASK] was in paris .", "the queen said that [MASK] was in paris .");
    metric = new TargetMetric(TargetMetric.Kind.LOGIT_DIFF, model.tokenizer().singleTokenId("she"),
        model.tokenizer().singleTokenId("he"));
  }

  @AfterAll
  static void close() {
    model.close();
  }

  @ParameterizedTest
  @EnumSource(PatchSite.class)
  void everyCellEqualsAPlainRunWithThatValueReplacedByHand(PatchSite site) {
    for (PatchDirection d : PatchDirection.values()) {
      PatchResult r = new ActivationPatching(model).run(pair, metric, site, d);
      Encoding base = d == PatchDirection.DENOISE ? pair.corrupted() : pair.clean();
      Encoding source = d == PatchDirection.DENOISE ? pair.clean() : pair.corrupted();
      double moved = 0;
      for (int l = 0; l < 2; l++) {
        HookPoint p = HookPoint.of(site.kind(), l);
        Activation src = capture(source, p);
        for (int c = 0; c < r.cells(); c++) {
          int cell = c;
          double want = metric(base, new Intervention.Edit(p, a -> replaced(site, a, src, cell)));
          assertThat(r.patched()[l][c]).as("%s %s layer %d cell %d", d, site, l, c).isCloseTo(want, within(1e-5));
          moved = Math.max(moved, Math.abs(want - r.base()));
        }
      }
      assertThat(moved).as("patching changes something").isGreaterThan(1e-4);
    }
  }

  @Test
  void theRecoveredShareIsTheOneOfThreePlainRuns() {
    PatchResult r = new ActivationPatching(model).run(pair, metric, PatchSite.HEAD, PatchDirection.DENOISE);
    double clean = metric(pair.clean(), null);
    double corrupted = metric(pair.corrupted(), null);
    assertThat(r.clean()).isCloseTo(clean, within(1e-5));
    assertThat(r.corrupted()).isCloseTo(corrupted, within(1e-5));
    assertThat(Math.abs(clean - corrupted)).as("the pair differs").isGreaterThan(1e-3);
    HookPoint p = HookPoint.of(HookPoint.Kind.ATTN_RESULT, 1);
    Activation src = capture(pair.clean(), p);
    for (int h = 0; h < 4; h++) {
      int head = h;
      double patched = metric(pair.corrupted(), new Intervention.Edit(p, a -> replaced(PatchSite.HEAD, a, src, head)));
      assertThat(r.recovered(1, h)).isCloseTo((patched - corrupted) / (clean - corrupted), within(1e-4));
    }
  }

  /**
   * Exact in exact arithmetic. Where the engine's products are batch-invariant the patched run and the
   * clean run make the same float32 operations on the same values, so the share is 1 to the bit. Elsewhere
   * (an AMD CPU, MKL outside its strict mode) each of the two metrics is within {@link Float32Bounds#forward}
   * of its scale (the larger |metric|) from the exact value, so the share within twice that over
   * |clean - corrupted|.
   */
  @Test
  void theWholeCleanStreamAtLayerOneRecoversExactlyAll() {
    PatchResult r = new ActivationPatching(model).run(pair, metric, PatchSite.RESID_PRE, PatchDirection.DENOISE);
    double all = metric(pair.corrupted(), new Intervention.Patch(HookPoint.residPre(0),
        capture(pair.clean(), HookPoint.residPre(0))));
    double share = (all - r.corrupted()) / (r.clean() - r.corrupted());
    if (model.batchInvariant()) {
      assertThat(share).isEqualTo(1.0);
    } else {
      double bound = 2 * Float32Bounds.forward(model.config(), pair.length())
          * Math.max(Math.abs(all), Math.abs(r.clean())) / Math.abs(r.clean() - r.corrupted());
      assertThat(share).isCloseTo(1.0, within(bound));
    }
  }

  @Test
  void theLastLayersOutputMattersOnlyAtTheMeasuredToken() {
    // the metric reads the last layer's output at [MASK] alone: patching it there is the clean run, elsewhere nothing
    PatchResult r = new ActivationPatching(model).run(pair, metric, PatchSite.RESID_POST, PatchDirection.DENOISE);
    int mask = pair.positions()[0];
    for (int t = 0; t < pair.length(); t++) {
      assertThat(r.recovered(1, t)).as("position %d", t).isCloseTo(t == mask ? 1.0 : 0.0, within(1e-4));
    }
  }

  @Test
  void oneLayersOutputIsTheNextLayersInput() {
    PatchResult post = new ActivationPatching(model).run(pair, metric, PatchSite.RESID_POST, PatchDirection.NOISE);
    PatchResult pre = new ActivationPatching(model).run(pair, metric, PatchSite.RESID_PRE, PatchDirection.NOISE);
    for (int t = 0; t < pair.length(); t++) {
      assertThat(post.recovered(0, t)).isCloseTo(pre.recovered(1, t), within(1e-5));
    }
  }

  @Test
  void theStreamsTogetherAreEachStreamAlone() {
    for (PatchDirection d : PatchDirection.values()) {
      java.util.List<PatchResult> all = new ActivationPatching(model).residualStream(pair, metric, d,
          io.headscope.model.store.ProgressListener.NONE, () -> false);
      for (PatchResult r : all) {
        PatchResult alone = new ActivationPatching(model).run(pair, metric, r.site(), d);
        double gap = Math.abs(r.clean() - r.corrupted());
        for (int l = 0; l < 2; l++) {
          for (int t = 0; t < pair.length(); t++) {
            // resid_mid comes from resid_post's runs, not its own: the metric agrees within 1e-5 as every
            // patched value does, and the share within that over the clean-corrupted gap it is divided by
            assertThat(r.patched()[l][t]).as("%s %s %d %d", d, r.site(), l, t).isCloseTo(alone.patched()[l][t],
                within(1e-5));
            assertThat(r.recovered(l, t)).as("%s %s %d %d", d, r.site(), l, t).isCloseTo(alone.recovered(l, t),
                within(1e-5 / gap));
          }
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(value = PatchSite.class, names = {"HEAD", "V", "RESID_PRE", "RESID_MID", "MLP"})
  void theKlOfEveryCellIsTheKlOfAPlainRunWithThatValueReplacedByHand(PatchSite site) {
    float[][] clean = logProbs(pair.clean(), null);
    double whole = handKl(clean, logProbs(pair.corrupted(), null));
    assertThat(whole).as("the pair's distributions differ").isGreaterThan(1e-4);
    for (PatchDirection d : PatchDirection.values()) {
      PatchResult r = new ActivationPatching(model).run(pair, PatchMetric.kl(null), site, d);
      assertThat(r.metric()).isEqualTo("kl");
      assertThat(r.clean()).isZero();
      assertThat(r.corrupted()).isCloseTo(whole, within(1e-5));
      Encoding base = d == PatchDirection.DENOISE ? pair.corrupted() : pair.clean();
      Encoding source = d == PatchDirection.DENOISE ? pair.clean() : pair.corrupted();
      for (int l = 0; l < 2; l++) {
        HookPoint p = HookPoint.of(site.kind(), l);
        Activation src = capture(source, p);
        for (int c = 0; c < r.cells(); c++) {
          int cell = c;
          double want = handKl(clean, logProbs(base, new Intervention.Edit(p, a -> replaced(site, a, src, cell))));
          assertThat(r.patched()[l][c]).as("%s %s layer %d cell %d", d, site, l, c).isCloseTo(want, within(1e-5));
          // the share divides the KL's float32 noise (about 1e-7 here, the batched run against the plain one) by the whole KL
          assertThat(r.recovered(l, c)).isCloseTo(1 - want / whole, within(1e-6 / whole));
        }
      }
    }
  }

  /**
   * The last layer's output at [MASK] is all the readout sees: patched there the run's distribution is the
   * source's (KL 0 when denoising: recovered 1; the corrupted one's when noising: 0), elsewhere the base's.
   * Not to the bit even where the engine's products are batch-invariant (7.6e-7 measured on an Intel CPU:
   * the patched runs go through other operations than the plain run). Each run's log-probabilities
   * are within {@code eps = gamma_N S} of the exact ones ({@link Float32Bounds#forward}, S the largest
   * |log p| at the readout), so the two runs' within 2 eps; a KL of two distributions whose logarithms
   * differ by at most 2 eps moves by at most 2 eps ({@code |sum_v p_v (log q_v - log q'_v)|}), and the
   * share by that over {@code KL(clean || corrupted)}.
   */
  @Test
  void theKlSharesAreOneAndZeroWhereTheReadoutSeesAllOrNothingOfThePatch() {
    int mask = pair.positions()[0];
    float[][] clean = logProbs(pair.clean(), null);
    float[][] corrupted = logProbs(pair.corrupted(), null);
    double largest = 0;
    for (float[][] lp : new float[][][] {clean, corrupted}) {
      for (float v : lp[0]) {
        largest = Math.max(largest, Math.abs(v));
      }
    }
    double eps = Float32Bounds.forward(model.config(), pair.length()) * largest;
    double bound = 2 * eps / handKl(clean, corrupted);
    for (PatchDirection d : PatchDirection.values()) {
      PatchResult r = new ActivationPatching(model).run(pair, PatchMetric.kl(null), PatchSite.RESID_POST, d);
      double atMask = d == PatchDirection.DENOISE ? 1.0 : 0.0;
      for (int t = 0; t < pair.length(); t++) {
        assertThat(r.recovered(1, t)).as("%s position %d", d, t).isCloseTo(t == mask ? atMask : 1 - atMask,
            within(bound));
      }
    }
    // the whole clean stream put into the corrupted run's first layer is the clean run: KL 0, recovered 1
    // (to 2 eps on any CPU: a patched run is not bit for bit a plain one, measured 8e-7 on an Intel CPU)
    double all = handKl(clean, logProbs(pair.corrupted(), new Intervention.Patch(HookPoint.residPre(0),
        capture(pair.clean(), HookPoint.residPre(0)))));
    assertThat(all).isCloseTo(0.0, within(2 * eps));
  }

  @Test
  void aPairWithTheSameDistributionHasNoKlToRecover() {
    PatchInputs same = PatchInputs.of(model, "the king was in [MASK] .", "the king was in [MASK] .");
    assertThatThrownBy(() -> new ActivationPatching(model).run(same, PatchMetric.kl(null), PatchSite.HEAD,
        PatchDirection.DENOISE)).isInstanceOf(HeadScopeException.class).hasMessageContaining("nothing to recover");
  }

  @Test
  void theFastResidualStreamEqualsPlainRunsWithEachTokensValueReplacedByHand() {
    // residualStream runs only resid_pre and the top resid_post, takes resid_mid and resid_post from them and
    // skips the cells whose value is the base's own: every cell of every stream against its own plain run
    float[][] clean = logProbs(pair.clean(), null);
    for (PatchDirection d : PatchDirection.values()) {
      Encoding base = d == PatchDirection.DENOISE ? pair.corrupted() : pair.clean();
      Encoding source = d == PatchDirection.DENOISE ? pair.clean() : pair.corrupted();
      java.util.List<PatchResult> target = new ActivationPatching(model).residualStream(pair, metric, d,
          io.headscope.model.store.ProgressListener.NONE, () -> false);
      java.util.List<PatchResult> kl = new ActivationPatching(model).residualStream(pair, PatchMetric.kl(null), d,
          io.headscope.model.store.ProgressListener.NONE, () -> false);
      for (int s = 0; s < 3; s++) {
        PatchSite site = target.get(s).site();
        assertThat(kl.get(s).site()).isEqualTo(site);
        for (int l = 0; l < 2; l++) {
          HookPoint p = HookPoint.of(site.kind(), l);
          Activation src = capture(source, p);
          for (int t = 0; t < pair.length(); t++) {
            int cell = t;
            Intervention edit = new Intervention.Edit(p, a -> replaced(site, a, src, cell));
            assertThat(target.get(s).patched()[l][t]).as("%s %s layer %d token %d", d, site, l, t)
                .isCloseTo(metric(base, edit), within(1e-5));
            assertThat(kl.get(s).patched()[l][t]).as("kl %s %s layer %d token %d", d, site, l, t)
                .isCloseTo(handKl(clean, logProbs(base, edit)), within(1e-5));
          }
        }
      }
    }
  }

  @Test
  void aCausalModelsTokensBeforeTheChangeAreSkippedAndStillRight() {
    // GPT-2: the tokens before the changed one have the same stream in both runs; their cells are not run
    try (BertModel gpt2 = BertModel.load(FamilyModelFolders.write("gpt2", dir.resolve("gpt2-resid"), 5))) {
      PatchInputs in = PatchInputs.of(gpt2, "the cat sat on the", "the dog sat on the");
      TargetMetric m = new TargetMetric(TargetMetric.Kind.LOGPROB, gpt2.tokenizer().singleTokenId("t"), -1);
      java.util.List<PatchResult> all = new ActivationPatching(gpt2).residualStream(in, m, PatchDirection.DENOISE,
          io.headscope.model.store.ProgressListener.NONE, () -> false);
      for (PatchResult r : all) {
        for (int l = 0; l < gpt2.config().numHiddenLayers(); l++) {
          HookPoint p = HookPoint.of(r.site().kind(), l);
          Activation src = gpt2.run(RunRequest.of(in.clean()).capture(Capture.points(p.kind()))).cache().get(p);
          for (int t = 0; t < in.length(); t++) {
            int cell = t;
            double want = gpt2.run(RunRequest.of(in.corrupted())
                .intervene(new Intervention.Edit(p, a -> replaced(r.site(), a, src, cell)))
                .read(Readouts.none().withLogProbs(in.positions()))).logProbs()[0][0][(int) m.target()];
            assertThat(r.patched()[l][t]).as("%s layer %d token %d", r.site(), l, t).isCloseTo(want, within(1e-5));
          }
        }
      }
      assertThat(all.get(0).recovered(0, 0)).as("the first token is the same in both").isZero();
    }
  }

  @Test
  void aPairWithNothingToRecoverIsRefused() {
    PatchInputs same = PatchInputs.of(model, "the king was in [MASK] .", "the king was in [MASK] .");
    assertThatThrownBy(() -> new ActivationPatching(model).run(same, metric, PatchSite.HEAD, PatchDirection.DENOISE))
        .isInstanceOf(HeadScopeException.class).hasMessageContaining("nothing to recover");
  }

  @Test
  void inputsOfDifferentLengthsAreRefusedInOneLineShowingBoth() {
    assertThatThrownBy(() -> PatchInputs.of(model, "the [MASK] sat .", "the big [MASK] sat ."))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("clean (6): [CLS] the [MASK] sat . [SEP]")
        .hasMessageContaining("corrupted (7): [CLS] the big [MASK] sat . [SEP]")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }

  @Test
  void aGpt2IsPatchedAtItsNextToken() {
    try (BertModel gpt2 = BertModel.load(FamilyModelFolders.write("gpt2", dir.resolve("gpt2"), 5))) {
      PatchInputs in = PatchInputs.of(gpt2, "the cat sat", "the dog sat");
      assertThat(in.positions()).containsExactly(in.length() - 1);
      TargetMetric m = new TargetMetric(TargetMetric.Kind.LOGPROB, gpt2.tokenizer().singleTokenId("t"), -1);
      PatchResult r = new ActivationPatching(gpt2).run(in, m, PatchSite.HEAD, PatchDirection.DENOISE);
      HookPoint p = HookPoint.of(HookPoint.Kind.ATTN_RESULT, 0);
      Activation src = gpt2.run(RunRequest.of(in.clean()).capture(Capture.points(p.kind()))).cache().get(p);
      double want = gpt2.run(RunRequest.of(in.corrupted())
          .intervene(new Intervention.Edit(p, a -> replaced(PatchSite.HEAD, a, src, 1)))
          .read(Readouts.none().withLogProbs(in.positions()))).logProbs()[0][0][(int) m.target()];
      assertThat(r.patched()[0][1]).isCloseTo(want, within(1e-5));
      // a causal model's last layer output at the last token is all its prediction reads
      PatchResult s = new ActivationPatching(gpt2).run(in, m, PatchSite.RESID_POST, PatchDirection.DENOISE);
      int last = gpt2.config().numHiddenLayers() - 1;
      assertThat(s.recovered(last, in.length() - 1)).isCloseTo(1.0, within(1e-4));
    }
  }

  /** The value of point {@code p} in a plain run of {@code e}. */
  static Activation capture(Encoding e, HookPoint p) {
    return model.run(RunRequest.of(e).capture(Capture.points(p.kind()))).cache().get(p);
  }

  /** The metric of a plain run of {@code e}, with one intervention (or none), read by hand. */
  static double metric(Encoding e, Intervention i) {
    float[] logp = model.run(RunRequest.of(e).intervene(i).read(Readouts.none().withLogProbs(pair.positions())))
        .logProbs()[0][0];
    return logp[(int) metric.target()] - logp[(int) metric.contrast()];
  }

  /** The masked-LM log-probabilities {@code [position][vocab]} at the pair's masks of a plain run of {@code e}. */
  static float[][] logProbs(Encoding e, Intervention i) {
    return model.run(RunRequest.of(e).intervene(i).read(Readouts.none().withLogProbs(pair.positions()))).logProbs()[0];
  }

  /** {@code KL(P || Q)} in nats, sum of {@code p log(p / q)} over the vocabulary, in double; mean over positions. */
  static double handKl(float[][] logp, float[][] logq) {
    double total = 0;
    for (int i = 0; i < logp.length; i++) {
      for (int v = 0; v < logp[i].length; v++) {
        double p = Math.exp(logp[i][v]);
        double q = Math.exp(logq[i][v]);
        total += p == 0 ? 0 : p * Math.log(p / q);
      }
    }
    return total / logp.length;
  }

  /** {@code a} with one head's (or one token's) values taken from {@code src}, by explicit indices. */
  static Activation replaced(PatchSite site, Activation a, Activation src, int cell) {
    float[] out = a.data().clone();
    int[] s = a.shape();
    for (int i = 0; i < out.length; i++) {
      if (inCell(site, s, i, cell)) {
        out[i] = src.data()[i];
      }
    }
    return new Activation(out, s);
  }

  /** Whether flat index {@code i} of a batch-of-one value belongs to the cell. */
  private static boolean inCell(PatchSite site, int[] s, int i, int cell) {
    if (site == PatchSite.HEAD) { // (1, T, H, d)
      return (i / s[3]) % s[2] == cell;
    }
    if (site.perHead()) { // (1, H, T, dh)
      return i / (s[2] * s[3]) == cell;
    }
    return i / s[2] == cell; // (1, T, d)
  }

}
