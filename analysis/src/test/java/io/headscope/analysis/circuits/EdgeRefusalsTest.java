package io.headscope.analysis.circuits;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.analysis.causal.PatchInputs;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.decoders.DecoderFolders;
import io.headscope.model.repository.ModelRepository;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The families whose forward the edge arithmetic does not describe are refused in one line rather than given
 * wrong scores: RMSNorm with grouped-query attention (Llama's kin: a key/value input is shared by a group of query
 * heads, and the stream's norms are not LayerNorms) and GPT-NeoX's parallel residual (its MLP reads the layer's
 * input, not the attention's output, so the graph's head -> MLP edges of one layer do not exist there).
 */
class EdgeRefusalsTest {
  @TempDir static Path dir;

  @Test
  void llamaIsRefusedInOneLine() {
    Path folder = DecoderFolders.llama(dir.resolve("llama"), 5);
    try (BertModel m = BertModel.load(new ModelRepository(dir.resolve("cache")).folder(folder))) {
      refused(m, "LayerNorm models with one key and value per head");
    }
  }

  @Test
  void gptNeoxsParallelResidualIsRefusedInOneLine() {
    Path folder = DecoderFolders.writeNeoxModern("gpt_neox", dir.resolve("neox"), 13);
    try (BertModel m = BertModel.load(new ModelRepository(dir.resolve("cache2")).folder(folder))) {
      refused(m, "parallel residual");
    }
  }

  private static void refused(BertModel m, String why) {
    String text = DecoderFolders.TEXT;
    PatchInputs in = PatchInputs.of(m, text, text);
    long[] ids = in.clean().ids();
    TargetMetric metric = new TargetMetric(TargetMetric.Kind.LOGIT_DIFF, ids[0], ids[1]);
    assertThatThrownBy(() -> EdgeAnalysis.of(m, in, metric, Ablation.CORRUPTED, null))
        .isInstanceOf(HeadScopeException.class).hasMessageContaining(why).hasMessageNotContaining("\n");
  }
}
