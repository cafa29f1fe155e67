package io.headscope.analysis.circuits;

import static org.assertj.core.api.Assertions.assertThat;
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
 * What is still refused on the families whose edges EdgeModernFamiliesTest checks, each in one line: an edge into
 * a query head's k or v where keys and values are shared by a group (Llama: the edge enters the group, and the
 * line names it), a head into its own layer's MLP under GPT-NeoX's parallel residual (the MLP reads the layer's
 * input), a probability metric (EAP's metric is a sum of log-probabilities), and composition scores on a grouped
 * model (they read every head's own k and v weights). Both families open, and their
 * graphs say what they are.
 */
class EdgeRefusalsTest {
  @TempDir static Path dir;

  @Test
  void llamaOpensWithKeyValueGroupsAndAHeadsKInputIsRefusedInOneLineNamingItsGroup() {
    Path folder = DecoderFolders.llama(dir.resolve("llama"), 5);
    try (BertModel m = BertModel.load(new ModelRepository(dir.resolve("cache")).folder(folder))) {
      EdgeAnalysis a = analysis(m, TargetMetric.Kind.LOGIT_DIFF);
      CircuitGraph g = a.graph();
      assertThat(g.grouped()).isTrue();
      assertThat(g.groups()).isEqualTo(2); // 2 key/value heads of 4 query heads
      assertThat(CircuitEdge.parse("1-3->2-g2:v", g).label()).isEqualTo("1-3->2-g2:v");
      assertThat(CircuitEdge.parse("embed->2-4:q", g).receiver()).isEqualTo(CircuitNode.head(1, 3));
      refused(() -> CircuitEdge.parse("embed->2-4:k", g), "2-g2:k");
      refused(() -> CircuitEdge.parse("embed->2-g3:k", g), "key/value groups g1-g2");
      refused(() -> CircuitEdge.parse("embed->2-g1:q", g), "no q input");
      refused(() -> analysis(m, TargetMetric.Kind.PROB), "logit-diff or logprob");
    }
  }

  @Test
  void pythiaOpensWithoutHeadToMlpEdgesWithinALayerAndSuchAnEdgeIsRefusedInOneLine() {
    Path folder = DecoderFolders.writeNeoxModern("gpt_neox", dir.resolve("neox"), 13);
    try (BertModel m = BertModel.load(new ModelRepository(dir.resolve("cache2")).folder(folder))) {
      CircuitGraph g = analysis(m, TargetMetric.Kind.LOGIT_DIFF).graph();
      assertThat(g.parallel()).isTrue();
      assertThat(CircuitEdge.parse("1-2->mlp2", g).receiver()).isEqualTo(CircuitNode.mlp(1));
      refused(() -> CircuitEdge.parse("2-2->mlp2", g), "parallel residual");
    }
  }

  private static EdgeAnalysis analysis(BertModel m, TargetMetric.Kind kind) {
    String text = DecoderFolders.TEXT;
    PatchInputs in = PatchInputs.of(m, text, text);
    long[] ids = in.clean().ids();
    TargetMetric metric = kind == TargetMetric.Kind.PROB ? new TargetMetric(kind, ids[0], -1)
        : new TargetMetric(kind, ids[0], ids[1]);
    return EdgeAnalysis.of(m, in, metric, Ablation.CORRUPTED, null);
  }

  private static void refused(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String why) {
    assertThatThrownBy(call).isInstanceOf(HeadScopeException.class).hasMessageContaining(why)
        .hasMessageNotContaining("\n");
  }
}
