package io.headscope.app.gui.main;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.core.Head;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 40: a long input's run reports each layer done (the bar sat empty for 20 s in "step 1 of 2"); the
 * reporting edits copy each layer's output out and back unchanged, so the maps, norms and predictions are the
 * same bits as without them.
 */
class LayerProgressTest {
  @TempDir Path dir;

  @Test
  void eachLayerIsReportedInOrderAndTheTraceIsTheSameBits() {
    Path tiny = TinyBert.create(3, 4, 9).writeTo(dir.resolve("tiny")).config().getParent();
    try (BertModel m = BertModel.load(new ModelRepository(dir.resolve("cache")).folder(tiny))) {
      Encoding enc = m.encode("the cat sat on the [MASK] . the dog ran .", null);
      AttentionTrace plain = m.trace(TraceRequest.of(enc).top(5).layerNorms()).get(0);
      List<Integer> seen = new ArrayList<>();
      AttentionTrace reported = m.trace(TraceRequest.of(enc).top(5).layerNorms()
          .adjust(r -> MainViewModel.reportingLayers(r, 3, seen::add))).get(0);
      assertThat(seen).containsExactly(1, 2, 3);
      for (Head h : Head.all(3, 4)) {
        assertThat(reported.map(h)).as("%s", h).isDeepEqualTo(plain.map(h));
      }
      assertThat(reported.valueNorms()).isDeepEqualTo(plain.valueNorms());
      assertThat(reported.predictions()).usingRecursiveComparison().isEqualTo(plain.predictions());
      assertThat(MainViewModel.reportingLayers(null, 3, null)).isNull(); // nothing added without a listener
    }
  }
}
