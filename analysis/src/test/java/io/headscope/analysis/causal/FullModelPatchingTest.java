package io.headscope.analysis.causal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.model.BertModel;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.Intervention;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.testing.FullModel;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;

/**
 * The pronoun pair of docs/CAUSAL.md on bert-base-uncased: exact patching of two heads against plain runs
 * edited by hand, and attribution patching ranking the heads as exact patching does.
 */
@DisabledIfSystemProperty(named = "headscope.skipFullModel", matches = "true")
@Tag("full-model")
class FullModelPatchingTest {

  @Test
  void thePronounPairOnBertBase() {
    BertModel model = FullModel.uncased();
    PatchInputs in = PatchInputs.of(model, "My sister lost her keys . The doctor said [MASK] would be late .",
        "My brother lost his keys . The doctor said [MASK] would be late .");
    TargetMetric m = new TargetMetric(TargetMetric.Kind.LOGIT_DIFF, model.tokenizer().singleTokenId("she"),
        model.tokenizer().singleTokenId("he"));
    PatchResult r = new ActivationPatching(model).run(in, m, PatchSite.HEAD, PatchDirection.DENOISE);
    for (int[] head : new int[][] {{11, 3}, {4, 0}}) {
      HookPoint p = HookPoint.of(HookPoint.Kind.ATTN_RESULT, head[0]);
      Activation clean = model.run(RunRequest.of(in.clean()).capture(Capture.points(p.kind()))).cache().get(p);
      float[] logp = model.run(RunRequest.of(in.corrupted())
          .intervene(new Intervention.Edit(p, a -> ActivationPatchingTest.replaced(PatchSite.HEAD, a, clean, head[1])))
          .read(Readouts.none().withLogProbs(in.positions()))).logProbs()[0][0];
      assertThat(r.patched()[head[0]][head[1]]).isCloseTo(logp[(int) m.target()] - logp[(int) m.contrast()],
          within(1e-4));
    }
    assertThat(r.clean()).isGreaterThan(0);
    assertThat(r.corrupted()).isLessThan(0);
    PatchResult both = r.withAttribution(new AttributionPatching(model).run(in, m, PatchSite.HEAD,
        PatchDirection.DENOISE));
    assertThat(PatchComparison.of(both, 3).spearman()).isGreaterThan(0.9);
  }
}
