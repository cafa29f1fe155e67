package io.headscope.analysis.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.analysis.export.AttentionNpz;
import io.headscope.analysis.export.JsonExport;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.Encoding;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rollout, flow and the exports of every map on a trace of summaries ({@link TraceRequest#summaries()}, what the app
 * keeps past 256 MB of maps): rollout and flow read each head's map on demand, one at a time, and equal to the bit
 * the rollout and flow of those same maps held whole (the sums run in the same order). The on-demand maps are the
 * full trace's bits where the products are batch-invariant and within AttentionOnDemandTest's derived bound
 * elsewhere (the AVX2 leg), so the comparison with a full trace's rollout is made through them. With heads switched
 * off, and for the exports, one line says why not, and nothing is written.
 */
class SummaryTraceFlowTest {
  @TempDir Path dir;

  @Test
  void rolloutAndFlowOfASummaryTraceEqualTheFullTracesAndItsExportsSayWhyNot() throws Exception {
    try (BertModel model = BertModel.load(TinyBert.create(3, 4, 29).writeTo(dir.resolve("tiny")))) {
      Encoding in = model.encode("the cat sat on the mat .", null);
      AttentionTrace full = model.trace(TraceRequest.of(in)).get(0);
      AttentionTrace summaries = model.trace(TraceRequest.of(in).summaries()).get(0);
      assertThat(full.hasFullMaps()).isTrue();
      assertThat(summaries.hasFullMaps()).as("a trace of summaries").isFalse();

      float[][][][] whole = whole(summaries);
      double[][][] want = Rollout.of(whole);
      assertThat(Rollout.of(summaries)).isDeepEqualTo(want);
      assertThat(Rollout.of(full)).isDeepEqualTo(Rollout.of(full.attention()));
      AttentionFlow flow = AttentionFlow.of(whole);
      AttentionFlow fromSummaries = AttentionFlow.of(summaries);
      assertThat(fromSummaries.raw()).isDeepEqualTo(flow.raw());
      assertThat(fromSummaries.normalized()).isDeepEqualTo(flow.normalized());
      // where this CPU's on-demand maps are the full trace's bits, so is the rollout
      if (java.util.Arrays.deepEquals(whole, full.attention())) {
        assertThat(Rollout.of(summaries)).isDeepEqualTo(Rollout.of(full.attention()));
      }
      // not trivially equal: the layers mix tokens
      assertThat(want[2][1][0]).isNotEqualTo(want[0][1][0]);

      for (String format : new String[] {"json", "npz"}) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThatThrownBy(() -> {
          if (format.equals("json")) {
            JsonExport.attention(summaries, null, false, out);
          } else {
            AttentionNpz.write(summaries, null, false, out);
          }
        }).isInstanceOf(HeadScopeException.class)
            .hasMessageContaining("kept as summaries").hasMessageNotContaining("\n");
        assertThat(out.size()).as(format + ": nothing half-written").isZero();
      }

      HeadMask off = HeadMask.of(Set.of(new Head(1, 2)), HeadMask.Mode.ZERO);
      AttentionTrace switched = model.trace(TraceRequest.of(in).mask(off).summaries()).get(0);
      assertThatThrownBy(() -> Rollout.of(switched)).isInstanceOf(HeadScopeException.class)
          .hasMessageContaining("switch the heads on").hasMessageNotContaining("\n");
      assertThatThrownBy(() -> AttentionFlow.of(switched)).isInstanceOf(HeadScopeException.class);
    }
  }

  /** Every head's on-demand map, held whole as a full trace holds them. */
  static float[][][][] whole(AttentionTrace t) {
    float[][][][] a = new float[t.layers()][t.heads()][][];
    for (int l = 0; l < t.layers(); l++) {
      for (int h = 0; h < t.heads(); h++) {
        a[l][h] = t.map(new Head(l, h));
      }
    }
    return a;
  }
}
