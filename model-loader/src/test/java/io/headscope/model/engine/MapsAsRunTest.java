package io.headscope.model.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A trace of the maps as the model ran them shows the switched-off heads as switched off, and nothing else differs. */
class MapsAsRunTest {
  @TempDir Path dir;

  @Test
  void switchedOffHeadsShowZerosOrEvenRowsAndEverythingElseIsTheSamePass() {
    try (BertModel model = BertModel.load(TinyBert.create(3, 4, 8).writeTo(dir.resolve("m")))) {
      Encoding e = model.encode("the cat sat on the mat.", null);
      int n = e.length();
      for (HeadMask.Mode mode : HeadMask.Mode.values()) {
        HeadMask mask = HeadMask.of(Set.of(new Head(1, 2)), mode);
        AttentionTrace computed = model.trace(TraceRequest.of(e).mask(mask).top(3)).get(0);
        AttentionTrace asRun = model.trace(TraceRequest.of(e).mask(mask).top(3).maps(AttentionTrace.Maps.AS_RUN))
            .get(0);
        assertThat(asRun.mapsLabel()).isEqualTo("as-run");
        assertThat(computed.mapsLabel()).isEqualTo("computed");
        for (int i = 0; i < n; i++) {
          for (int j = 0; j < n; j++) {
            double expected = mode == HeadMask.Mode.ZERO ? 0 : 1.0 / n;
            assertThat((double) asRun.attention()[1][2][i][j]).isCloseTo(expected, within(1e-7));
          }
        }
        for (int l = 0; l < 3; l++) {
          for (int h = 0; h < 4; h++) {
            if (l != 1 || h != 2) {
              assertThat(asRun.attention()[l][h]).as("%d-%d", l + 1, h + 1).isDeepEqualTo(computed.attention()[l][h]);
            }
          }
        }
        assertThat(asRun.hiddenStates()).isDeepEqualTo(computed.hiddenStates());
      }
      assertThat(model.trace(e).mapsLabel()).isEqualTo("intact");
    }
  }
}
