package io.headscope.analysis.lens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.BertModel;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.testing.FullModel;
import io.headscope.model.tokenizer.Encoding;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;

/** Direct logit attribution on bert-base-uncased: the components sum to the model's own logit difference. */
@DisabledIfSystemProperty(named = "headscope.skipFullModel", matches = "true")
@Tag("full-model")
class FullModelDlaTest {

  @Test
  void thePronounPairsComponentsSumToItsLogitDifference() {
    BertModel model = FullModel.uncased();
    Encoding in = model.encode("My sister lost her keys . The doctor said [MASK] would be late .", null);
    long she = model.tokenizer().singleTokenId("she");
    long he = model.tokenizer().singleTokenId("he");
    DlaResult r = new DirectLogitAttribution(model).run(in, she, he);
    int p = r.positions()[0];
    float[] logp = model.run(RunRequest.of(in).read(Readouts.none().withLogProbs(new int[] {p}))).logProbs()[0][0];
    double diff = logp[(int) she] - logp[(int) he];
    assertThat(diff).isGreaterThan(4); // docs/CAUSAL.md: +4.33
    assertThat(r.sum(p, true)).isCloseTo(diff, within(1e-4 * diff));
    assertThat(r.rows()).hasSize(1 + 12 * 14 + 1);
  }
}
