package io.headscope.analysis.ablation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.testing.FullModel;
import io.headscope.model.tokenizer.Encoding;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;

/** The fast sweep on bert-base-uncased against plain forward passes, for a few heads. */
@DisabledIfSystemProperty(named = "headscope.skipFullModel", matches = "true")
@Tag("full-model")
class FullModelAblationTest {

  @Test
  void fastSweepEqualsPlainPassesOnBertBase() {
    BertModel model = FullModel.uncased();
    Encoding input = model.encode("the capital of france is [MASK] , and it is a big city .", null);
    AblationResult r = new AblationSweep(model).run(input, new AblationSweep.Options(HeadMask.Mode.ZERO, true, 0));
    MlmProbe probe = MlmProbe.of(model, input, 0);
    assertThat(r.baselineLogprob()).isCloseTo(PlainPasses.measure(model, probe, Set.of(), HeadMask.Mode.ZERO)[0], within(1e-5));
    for (Head h : List.of(new Head(0, 0), new Head(4, 3), new Head(10, 7), new Head(11, 11))) {
      double[] plain = PlainPasses.measure(model, probe, Set.of(h), HeadMask.Mode.ZERO);
      assertThat(r.headLogprob()[h.layer()][h.head()]).as("logprob %s", h).isCloseTo(plain[0], within(1e-5));
      assertThat(r.headKl()[h.layer()][h.head()]).as("kl %s", h).isCloseTo(plain[2], within(1e-5));
    }
    double[] layer1 = PlainPasses.measure(model, probe, Head.parseList("1", 12, 12), HeadMask.Mode.ZERO);
    assertThat(r.layerLogprob()[0]).isCloseTo(layer1[0], within(1e-5));
    // the intact model knows the answer, and single heads move it only a little (Michel et al.)
    assertThat(Math.exp(r.baselineLogprob())).isGreaterThan(0.3);
    assertThat(r.helpfulHeads().size()).isLessThan(144);
  }
}
