package io.headscope.analysis.neuron;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.decoders.DecoderFolders;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The neuron view on Mistral's sliding window: the softmax computed from q and k over the keys the query
 * sees (itself and the window - 1 before it) is the engine's map row, at queries inside and beyond the
 * window. Before the window was known here, the view's softmax also spread over the keys beyond it.
 */
class NeuronViewWindowTest {
  @TempDir Path dir;

  @Test
  void theSoftmaxSpansExactlyTheWindow() {
    int window = 3;
    Path folder = DecoderFolders.mistral(dir.resolve("mistral"), 45, window);
    try (BertModel m = BertModel.load(new ModelRepository(dir.resolve("cache")).folder(folder))) {
      Encoding e = m.encode(DecoderFolders.TEXT, null);
      for (Head h : new Head[] {new Head(0, 0), new Head(1, 3)}) {
        for (int query = 0; query < e.length(); query++) {
          NeuronView v = NeuronView.of(m, e, h, query);
          for (int j = 0; j < e.length(); j++) {
            boolean seen = query - window < j && j <= query;
            assertThat(Double.isNaN(v.scores()[j])).as("query %d key %d hidden", query, j).isEqualTo(!seen);
            // both softmaxes of the same float scores: double here, float32 in the engine (a few ulp of 1)
            assertThat(v.softmax()[j]).as("%s query %d key %d", h, query, j).isCloseTo(v.attention()[j], within(1e-6));
          }
        }
      }
    }
  }

  /**
   * ModernBERT's local layers (1 and 3 of 4, local_attention 4): the view hides the keys more than 2 away on either
   * side and its softmax is the engine's row; the global layers (0 and 2) hide none. Before, a bidirectional model's
   * window was ignored here and the softmax spread over every key.
   */
  @Test
  void aModernBertLocalLayerSeesTheKeysWithinHalfTheWindowOnEitherSide() {
    Path folder = DecoderFolders.writeNeoxModern("modernbert", dir.resolve("modernbert"), 53);
    try (BertModel m = BertModel.load(new ModelRepository(dir.resolve("cache")).folder(folder))) {
      Encoding e = m.encode(DecoderFolders.neoxModernText("modernbert"), null);
      for (Head h : new Head[] {new Head(0, 1), new Head(1, 0), new Head(2, 3), new Head(3, 2)}) {
        boolean local = h.layer() % 2 != 0;
        for (int query = 0; query < e.length(); query++) {
          NeuronView v = NeuronView.of(m, e, h, query);
          for (int j = 0; j < e.length(); j++) {
            boolean seen = !local || Math.abs(query - j) <= 2;
            assertThat(Double.isNaN(v.scores()[j])).as("%s query %d key %d hidden", h, query, j).isEqualTo(!seen);
            assertThat(v.softmax()[j]).as("%s query %d key %d", h, query, j).isCloseTo(v.attention()[j], within(1e-6));
          }
        }
      }
    }
  }
}
