package io.headscope.analysis.ablation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.MaskPrediction;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sweep that follows a chosen target (and contrast) equals the same metric computed from plain
 * passes' probabilities, one pass per switched-off head.
 */
class TargetMetricSweepTest {
  @TempDir static Path dir;
  static BertModel model;

  @BeforeAll
  static void load() {
    model = BertModel.load(TinyBert.create(3, 4, 21).writeTo(dir.resolve("tiny")));
  }

  @AfterAll
  static void close() {
    model.close();
  }

  /** The metric from a plain pass's distributions at every [MASK], mean over them, in double precision. */
  static double plain(Encoding e, Set<Head> off, HeadMask.Mode mode, TargetMetric m) {
    AttentionTrace t = model.trace(TraceRequest.of(e).mask(HeadMask.of(off, mode)).top(1)).get(0);
    double sum = 0;
    for (MaskPrediction p : t.predictions()) {
      double pt = p.probabilities()[(int) m.target()];
      double pc = m.hasContrast() ? p.probabilities()[(int) m.contrast()] : 0;
      sum += switch (m.kind()) {
        case PROB -> m.hasContrast() ? pt - pc : pt;
        case LOGPROB, LOGIT_DIFF -> m.hasContrast() ? Math.log(pt) - Math.log(pc) : Math.log(pt);
      };
    }
    return sum / t.predictions().size();
  }

  @Test
  void everyMetricEqualsPlainPasses() {
    Encoding e = model.encode("the [MASK] sat on the [MASK] .", null);
    long cat = model.tokenizer().singleTokenId("cat");
    long dog = model.tokenizer().singleTokenId("Dog"); // an uncased model lower-cases
    assertThat(model.tokenizer().vocabToken(dog)).isEqualTo("dog");
    List<TargetMetric> metrics = List.of(
        new TargetMetric(TargetMetric.Kind.LOGPROB, cat, -1),
        new TargetMetric(TargetMetric.Kind.PROB, cat, -1),
        new TargetMetric(TargetMetric.Kind.PROB, cat, dog),
        new TargetMetric(TargetMetric.Kind.LOGIT_DIFF, cat, dog));
    for (HeadMask.Mode mode : HeadMask.Mode.values()) {
      for (TargetMetric m : metrics) {
        AblationResult r = new AblationSweep(model).run(e, new AblationSweep.Options(mode, true, 0).following(m));
        assertThat(r.metric()).isEqualTo(m.column());
        assertThat(r.baselineLogprob()).as("%s baseline", m).isCloseTo(plain(e, Set.of(), mode, m), within(1e-5));
        for (Head h : List.of(new Head(0, 1), new Head(1, 3), new Head(2, 0))) {
          assertThat(r.headLogprob()[h.layer()][h.head()]).as("%s %s %s", m, h, mode)
              .isCloseTo(plain(e, Set.of(h), mode, m), within(1e-5));
        }
        Set<Head> layer2 = Head.parseList("2", 3, 4);
        assertThat(r.layerLogprob()[1]).isCloseTo(plain(e, layer2, mode, m), within(1e-5));
      }
    }
  }

  @Test
  void aTargetNeedsAMaskAndOneWordpiece() {
    TargetMetric m = new TargetMetric(TargetMetric.Kind.LOGPROB, model.tokenizer().singleTokenId("cat"), -1);
    assertThatThrownBy(() -> new AblationSweep(model).run(model.encode("the cat sat .", null),
        AblationSweep.Options.DEFAULT.following(m))).isInstanceOf(HeadScopeException.class).hasMessageContaining("[MASK]");
    assertThatThrownBy(() -> model.tokenizer().singleTokenId("catdog"))
        .isInstanceOf(HeadScopeException.class).hasMessageContaining("wordpieces");
    assertThatThrownBy(() -> new TargetMetric(TargetMetric.Kind.LOGIT_DIFF, 7, -1)).isInstanceOf(HeadScopeException.class);
  }
}
