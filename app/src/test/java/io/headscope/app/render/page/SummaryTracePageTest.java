package io.headscope.app.render.page;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.app.render.RolloutCache;
import io.headscope.analysis.flow.Rollout;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The app's services on a trace of summaries (what it keeps past 256 MB of maps): the head view's and the Flow
 * screen's rollout reads the maps on demand and equals the rollout of those maps held whole; the interactive page,
 * which carries every map, refuses such an input in one line before any pass runs.
 */
class SummaryTracePageTest {
  @TempDir Path dir;

  @Test
  void theRolloutCacheOfASummaryTraceIsTheRolloutOfItsOnDemandMapsInFloat() {
    try (BertModel model = BertModel.load(TinyBert.create(2, 3, 31).writeTo(dir.resolve("tiny")))) {
      Encoding in = model.encode("the cat sat on the mat .", null);
      AttentionTrace full = model.trace(TraceRequest.of(in)).get(0);
      AttentionTrace summaries = model.trace(TraceRequest.of(in).summaries()).get(0);
      float[][][] got = RolloutCache.of(summaries);
      // the rollout of the same on-demand maps held whole (they equal a full trace's within AttentionOnDemandTest's
      // bound, to the bit where the products are batch-invariant)
      float[][][][] whole = new float[summaries.layers()][summaries.heads()][][];
      for (int l = 0; l < whole.length; l++) {
        for (int h = 0; h < whole[l].length; h++) {
          whole[l][h] = summaries.map(new io.headscope.model.core.Head(l, h));
        }
      }
      double[][][] want = Rollout.of(whole);
      assertThat(full.hasFullMaps()).isTrue();
      assertThat(got).hasDimensions(want.length, want[0].length);
      for (int l = 0; l < want.length; l++) {
        for (int j = 0; j < want[l].length; j++) {
          for (int i = 0; i < want[l][j].length; i++) {
            assertThat(got[l][j][i]).isEqualTo((float) want[l][j][i]);
          }
        }
      }
    }
  }

  @Test
  void aPageOfMoreMapsThanItIsMadeWithIsRefusedInOneLine() {
    PageData.requireFits(12, 12, 512, PageData.MAPS_UP_TO); // bert-base at 512 tokens: 151 MB, made as before
    assertThatThrownBy(() -> PageData.requireFits(22, 32, 2048, PageData.MAPS_UP_TO))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("11264 MB").hasMessageContaining("shorten the input").hasMessageNotContaining("\n");
    // one byte over the line is refused, the line itself is not
    PageData.requireFits(1, 1, 2, 16);
    assertThatThrownBy(() -> PageData.requireFits(1, 1, 2, 15)).isInstanceOf(HeadScopeException.class);
  }
}
