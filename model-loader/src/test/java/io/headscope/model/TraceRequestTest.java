package io.headscope.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.engine.Intervention;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The trace request's defaults and options, and that the old positional overloads ask for the same pass. */
class TraceRequestTest {
  @TempDir Path dir;

  @Test
  void defaultsAreEveryHeadOnTheComputedMapsAndFiveTokens() {
    TraceRequest r = TraceRequest.of(List.of());
    assertThat(r.mask()).isEqualTo(HeadMask.NONE);
    assertThat(r.top()).isEqualTo(TraceRequest.DEFAULT_TOP).isEqualTo(5);
    assertThat(r.maps()).isEqualTo(AttentionTrace.Maps.COMPUTED);
    assertThat(r.layerNormMaps()).isFalse();
  }

  @Test
  void optionsReturnChangedCopies() {
    TraceRequest plain = TraceRequest.of(List.of());
    HeadMask off = HeadMask.of(Set.of(new Head(0, 1)), HeadMask.Mode.UNIFORM);
    TraceRequest r = plain.mask(off).top(2).maps(AttentionTrace.Maps.AS_RUN).layerNorms();
    assertThat(r.mask()).isEqualTo(off);
    assertThat(r.top()).isEqualTo(2);
    assertThat(r.maps()).isEqualTo(AttentionTrace.Maps.AS_RUN);
    assertThat(r.layerNormMaps()).isTrue();
    assertThat(plain.mask()).isEqualTo(HeadMask.NONE);
    assertThat(plain.layerNormMaps()).isFalse();
  }

  @Test
  void theRequestsMaskIsTheHeadInterventionItNames() {
    try (BertModel model = BertModel.load(TinyBert.create(3, 4, 8).writeTo(dir.resolve("m")))) {
      List<Encoding> batch = List.of(model.encode("the cat sat on the mat.", null), model.encode("a dog ran", null));
      HeadMask off = HeadMask.of(Set.of(new Head(1, 2), new Head(2, 0)), HeadMask.Mode.ZERO);
      Intervention.HeadMasks more = new Intervention.HeadMasks(
          new float[][][] {{{1, 1, 1, 1}, {1, 1, 1, 1}, {1, 0, 1, 1}}}, HeadMask.Mode.UNIFORM);
      List<AttentionTrace> fresh = model.trace(TraceRequest.of(batch).mask(off).top(3)
          .maps(AttentionTrace.Maps.AS_RUN).layerNorms().adjust(r -> r.intervene(more)));
      // the same switches written as the engine's own interventions, without the request's mask option
      List<AttentionTrace> old = model.trace(TraceRequest.of(batch).top(3).maps(AttentionTrace.Maps.AS_RUN)
          .layerNorms().adjust(r -> r.intervene(Intervention.heads(off, model.config())).intervene(more)));
      assertThat(fresh).hasSize(2);
      for (int i = 0; i < 2; i++) {
        AttentionTrace a = fresh.get(i);
        AttentionTrace b = old.get(i);
        assertThat(a.attention()).isDeepEqualTo(b.attention());
        assertThat(a.layerNorms()).isNotNull().isDeepEqualTo(b.layerNorms());
        assertThat(a.hiddenStates()).isDeepEqualTo(b.hiddenStates());
        assertThat(a.predictions()).hasSameSizeAs(b.predictions());
        assertThat(a.mapsLabel()).isEqualTo("as-run");
        assertThat(a.mask()).isEqualTo(off);
      }
      // the added intervention ran: the map of 3-2 differs from a trace without it
      AttentionTrace without = model.trace(TraceRequest.of(batch).mask(off).top(3).maps(AttentionTrace.Maps.AS_RUN))
          .get(0);
      assertThat(fresh.get(0).attention()[2][1]).isNotEqualTo(without.attention()[2][1]);
      assertThat(model.trace(TraceRequest.of(List.of()))).isEmpty();
    }
  }
}
