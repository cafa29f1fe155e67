package io.headscope.analysis.flow;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.core.BertConfig;
import io.headscope.model.tokenizer.Encoding;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The default method: exact within the cost of bert-base at 10 tokens, the estimate beyond. */
class JacobianDefaultsTest {
  static final BertConfig BASE = new BertConfig(30522, 768, 12, 12, 3072, "gelu", 512, 2, 1e-12, List.of());
  static final BertConfig TINY = new BertConfig(100, 16, 2, 4, 32, "gelu", 512, 2, 1e-12, List.of());

  static Encoding tokens(int n) {
    return new Encoding(Collections.nCopies(n, "a"), new long[n], new long[n], -1, 0);
  }

  @Test
  void bertBaseIsExactUpToTenTokens() {
    assertThat(TokenJacobian.defaultSamples(tokens(10), BASE)).isZero();
    assertThat(TokenJacobian.defaultSamples(tokens(11), BASE)).isEqualTo(TokenJacobian.DEFAULT_SAMPLES);
  }

  @Test
  void aSmallModelStaysExactOnLongInputs() {
    // 2 x 16^3 against 12 x 768^3: exact while T^2 <= 100 * 6 * 48^3, so any length a model takes
    assertThat(TokenJacobian.defaultSamples(tokens(512), TINY)).isZero();
  }
}
