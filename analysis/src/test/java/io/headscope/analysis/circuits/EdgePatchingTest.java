package io.headscope.analysis.circuits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.analysis.causal.PatchInputs;
import io.headscope.model.BertModel;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.Intervention;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.engine.RunResult;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.testing.families.FamilyModelFolders;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exact edge patching against the definition done by hand with whole engine runs. BERT (post-LayerNorm): the
 * receiver's input is the stream of a whole run of the clean input with every attention and MLP output frozen
 * at the clean run's ({@code hook_attn_out}, {@code hook_mlp_out}) but the sender's swapped for the corrupted
 * one, the engine recomputing the LayerNorms; GPT-2 (pre-LayerNorm): the clean stream plus the sender's change,
 * added by hand. The receiver then runs on that input inside an otherwise clean run. EdgeForward instead
 * rebuilds every stream in Java from component outputs, so the two agree only if both follow the definition.
 */
class EdgePatchingTest {
  @TempDir static Path dir;
  static BertModel bert;
  static BertModel gpt;
  static PatchInputs bertPair;
  static PatchInputs gptPair;
  static TargetMetric bertMetric;
  static TargetMetric gptMetric;

  /**
   * Both sides are float32 runs of the same equations; EdgeForward sums the stream in double from float32
   * outputs and the engine in float32, so they differ by float32 roundings of values below about 10 through at
   * most three layers (eps 6e-8 each, a few hundred operations per value): about 1e-5 on a logit, under 5e-5.
   */
  static final double FLOAT32 = 5e-5;

  @BeforeAll
  static void load() throws Exception {
    bert = BertModel.load(TinyBert.create(3, 4, 31).writeTo(dir.resolve("tiny")));
    bertPair = PatchInputs.of(bert, "the king said that [MASK] was in paris .", "the queen said that [MASK] was in paris .");
    bertMetric = new TargetMetric(TargetMetric.Kind.LOGIT_DIFF, bert.tokenizer().singleTokenId("she"),
        bert.tokenizer().singleTokenId("he"));
    gpt = BertModel.load(FamilyModelFolders.write("gpt2", dir.resolve("gpt2"), 3));
    gptPair = PatchInputs.of(gpt, "the cat sat on", "the dog sat on");
    gptMetric = new TargetMetric(TargetMetric.Kind.LOGIT_DIFF, gptPair.clean().ids()[0], gptPair.clean().ids()[1]);
  }

  @AfterAll
  static void close() {
    bert.close();
    gpt.close();
  }

  @Test
  void bertEdgesEqualFrozenWholeRunsWithTheLayerNormsRecomputed() {
    EdgeAnalysis a = EdgeAnalysis.of(bert, bertPair, bertMetric, Ablation.CORRUPTED, null);
    checkEdges(bert, bertPair, bertMetric, a, false);
  }

  @Test
  void gptEdgesAreTheCleanStreamPlusTheSendersChange() {
    EdgeAnalysis a = EdgeAnalysis.of(gpt, gptPair, gptMetric, Ablation.CORRUPTED, null);
    checkEdges(gpt, gptPair, gptMetric, a, true);
  }

  @Test
  void noEdgeAblatedIsTheCleanRunAndEveryEdgeTheCorruptedOne() {
    for (boolean g : new boolean[] {false, true}) {
      EdgeAnalysis a = g ? EdgeAnalysis.of(gpt, gptPair, gptMetric, Ablation.CORRUPTED, null)
          : EdgeAnalysis.of(bert, bertPair, bertMetric, Ablation.CORRUPTED, null);
      assertThat(a.metricWithout(List.of())).isCloseTo(a.clean(), within(FLOAT32));
      assertThat(a.empty()).isCloseTo(a.corrupted(), within(FLOAT32));
      assertThat(a.circuitMetric(a.graph().edges())).isCloseTo(a.clean(), within(FLOAT32));
      assertThat(Math.abs(a.clean() - a.corrupted())).as("the pair differs").isGreaterThan(1e-3);
    }
  }

  private static void checkEdges(BertModel m, PatchInputs in, TargetMetric metric, EdgeAnalysis a, boolean pre) {
    int layers = m.config().numHiddenLayers();
    int hs = m.config().numAttentionHeads();
    List<CircuitEdge> edges = List.of(
        new CircuitEdge(CircuitNode.head(0, 1 % hs), CircuitNode.head(layers - 1, hs - 1), CircuitEdge.Input.Q),
        new CircuitEdge(CircuitNode.EMBEDDINGS, CircuitNode.head(1, 0), CircuitEdge.Input.K),
        new CircuitEdge(CircuitNode.mlp(0), CircuitNode.head(layers - 1, (hs + 2) % hs), CircuitEdge.Input.V),
        new CircuitEdge(CircuitNode.head(1, (hs + 2) % hs), CircuitNode.mlp(layers - 1), CircuitEdge.Input.MLP),
        new CircuitEdge(CircuitNode.head(0, 0), CircuitNode.LOGITS, CircuitEdge.Input.LOGITS),
        new CircuitEdge(CircuitNode.mlp(layers - 1), CircuitNode.LOGITS, CircuitEdge.Input.LOGITS));
    EdgeScores s = a.exact(edges);
    double moved = 0;
    for (int i = 0; i < edges.size(); i++) {
      double want = byHand(m, in, metric, edges.get(i), pre) - a.clean();
      assertThat(s.score(i)).as(edges.get(i).label()).isCloseTo(want, within(FLOAT32));
      moved = Math.max(moved, Math.abs(want));
    }
    assertThat(moved).as("some edge matters").isGreaterThan(1e-3);
  }

  /** The metric with one edge ablated, by whole engine runs. */
  static double byHand(BertModel m, PatchInputs in, TargetMetric metric, CircuitEdge e, boolean pre) {
    int layers = m.config().numHiddenLayers();
    Capture all = Capture.points(HookPoint.Kind.EMBED, HookPoint.Kind.ATTN_RESULT, HookPoint.Kind.ATTN_OUT,
        HookPoint.Kind.MLP_OUT, HookPoint.Kind.RESID_PRE, HookPoint.Kind.RESID_MID, HookPoint.Kind.RESID_POST);
    RunResult clean = m.run(RunRequest.of(in.clean()).capture(all));
    RunResult corrupted = m.run(RunRequest.of(in.corrupted()).capture(all));
    CircuitNode s = e.sender();
    CircuitNode r = e.receiver();
    HookPoint at = switch (r.kind()) {
      case HEAD -> HookPoint.residPre(r.layer());
      case MLP -> HookPoint.of(HookPoint.Kind.RESID_MID, r.layer());
      default -> HookPoint.residPost(layers - 1);
    };
    Activation input;
    if (pre) {
      float[] x = clean.cache().get(at).data().clone();
      double[] change = senderChange(s, clean, corrupted);
      for (int i = 0; i < x.length; i++) {
        x[i] = (float) (x[i] + change[i]);
      }
      input = new Activation(x, clean.cache().get(at).shape());
    } else {
      RunRequest frozen = RunRequest.of(in.clean());
      for (int l = 0; l < layers; l++) {
        if (!(s.kind() == CircuitNode.Kind.HEAD && s.layer() == l)) {
          HookPoint p = HookPoint.of(HookPoint.Kind.ATTN_OUT, l);
          frozen = frozen.intervene(new Intervention.Patch(p, clean.cache().get(p)));
        }
        HookPoint p = HookPoint.of(HookPoint.Kind.MLP_OUT, l);
        boolean swap = s.kind() == CircuitNode.Kind.MLP && s.layer() == l;
        frozen = frozen.intervene(new Intervention.Patch(p, (swap ? corrupted : clean).cache().get(p)));
      }
      if (s.kind() == CircuitNode.Kind.EMBEDDINGS) {
        frozen = frozen.intervene(new Intervention.Patch(HookPoint.embed(), corrupted.cache().get(HookPoint.embed())));
      }
      if (s.kind() == CircuitNode.Kind.HEAD) {
        HookPoint p = HookPoint.of(HookPoint.Kind.ATTN_RESULT, s.layer());
        Activation c = clean.cache().get(p);
        Activation k = corrupted.cache().get(p);
        float[] x = c.data().clone();
        int t = c.dim(1);
        int h = c.dim(2);
        int d = c.dim(3);
        for (int i = 0; i < t; i++) {
          System.arraycopy(k.data(), (i * h + s.head()) * d, x, (i * h + s.head()) * d, d);
        }
        frozen = frozen.intervene(new Intervention.Patch(p, new Activation(x, c.shape())));
      }
      input = m.run(frozen.capture(Capture.points(at.kind()))).cache().get(at);
    }
    Readouts read = Readouts.none().withLogProbs(in.positions());
    RunRequest b = RunRequest.of(in.clean()).read(read);
    switch (r.kind()) {
      case HEAD -> {
        HookPoint p = EdgeRuns.point(e.input(), r.layer());
        Activation q = m.run(RunRequest.of(in.clean()).startingAt(r.layer(), input).capture(Capture.points(p.kind()))
            .stoppingBefore(r.layer() + 1)).cache().get(p);
        b = b.intervene(new Intervention.Edit(p, v -> withHead(v, q, r.head())));
      }
      case MLP -> {
        HookPoint p = HookPoint.of(HookPoint.Kind.MLP_OUT, r.layer());
        Activation out = m.run(RunRequest.of(in.clean()).startingAt(r.layer(), clean.cache().get(HookPoint.residPre(r.layer())))
            .intervene(new Intervention.Patch(HookPoint.of(HookPoint.Kind.RESID_MID, r.layer()), input))
            .capture(Capture.points(HookPoint.Kind.MLP_OUT)).stoppingBefore(r.layer() + 1)).cache().get(p);
        b = b.intervene(new Intervention.Patch(p, out));
      }
      default -> b = RunRequest.of(in.clean()).startingAt(layers, input).read(read);
    }
    return EdgeRuns.value(metric, m.run(b).logProbs()[0]);
  }

  static HookPoint senderPoint(CircuitNode s) {
    return switch (s.kind()) {
      case EMBEDDINGS -> HookPoint.embed();
      case HEAD -> HookPoint.of(HookPoint.Kind.ATTN_RESULT, s.layer());
      default -> HookPoint.of(HookPoint.Kind.MLP_OUT, s.layer());
    };
  }

  /**
   * What sender {@code s} adds to the residual stream in the corrupted run minus what it adds in the clean one, (T, d)
   * row-major in double: a head's slice of {@code hook_result} (1, T, H, d), else the whole output; both runs captured
   * the sender's point.
   */
  static double[] senderChange(CircuitNode s, RunResult clean, RunResult corrupted) {
    HookPoint out = senderPoint(s);
    Activation c = clean.cache().get(out);
    Activation k = corrupted.cache().get(out);
    if (s.kind() != CircuitNode.Kind.HEAD) {
      double[] change = new double[c.data().length];
      for (int i = 0; i < change.length; i++) {
        change[i] = (double) k.data()[i] - c.data()[i];
      }
      return change;
    }
    int t = c.dim(1);
    int h = c.dim(2);
    int d = c.dim(3);
    double[] change = new double[t * d];
    for (int i = 0; i < t; i++) {
      for (int j = 0; j < d; j++) {
        int o = (i * h + s.head()) * d + j;
        change[i * d + j] = (double) k.data()[o] - c.data()[o];
      }
    }
    return change;
  }

  static Activation withHead(Activation into, Activation from, int head) {
    float[] data = into.data().clone();
    int[] s = into.shape();
    int block = s[2] * s[3];
    System.arraycopy(from.data(), head * block, data, head * block, block);
    return new Activation(data, s);
  }
}
