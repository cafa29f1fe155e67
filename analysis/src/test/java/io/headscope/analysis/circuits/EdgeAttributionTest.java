package io.headscope.analysis.circuits;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.analysis.causal.PatchInputs;
import io.headscope.model.BertModel;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.Intervention;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.testing.families.FamilyModelFolders;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * EAP and EAP-IG against computations that use no gradient: EAP is the derivative of exact edge patching in
 * the size of the ablation ({@code ablated = clean + eps (ablated - clean)}, the edge's metric {@code f(eps)},
 * EAP = {@code f'(0)}), checked by central finite differences of exact edge patching with a Richardson estimate
 * of their error; EAP-IG is the right Riemann sum of the derivative of the metric along the embedding path, the
 * derivative again by finite differences of whole runs, and for many points the integral (Simpson's rule).
 */
class EdgeAttributionTest {
  @TempDir static Path dir;
  static BertModel bert;
  static BertModel gpt;
  static PatchInputs bertPair;
  static PatchInputs gptPair;
  static TargetMetric bertMetric;
  static TargetMetric gptMetric;
  /** A metric from a float32 run differs from the exact one by a few 1e-6 here; 5e-5 as in EdgePatchingTest. */
  static final double NOISE = 5e-5;

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
  void bertEapIsTheDerivativeOfExactEdgePatching() {
    checkDerivative(EdgeAnalysis.of(bert, bertPair, bertMetric, Ablation.CORRUPTED, null));
  }

  @Test
  void gptEapIsTheDerivativeOfExactEdgePatching() {
    checkDerivative(EdgeAnalysis.of(gpt, gptPair, gptMetric, Ablation.CORRUPTED, null));
  }

  private static void checkDerivative(EdgeAnalysis a) {
    EdgeScores eap = a.eap();
    Map<CircuitEdge, Integer> index = a.graph().index();
    int layers = a.runs().layers;
    int hs = a.runs().heads;
    List<CircuitEdge> edges = List.of(
        new CircuitEdge(CircuitNode.head(0, 1 % hs), CircuitNode.head(layers - 1, hs - 1), CircuitEdge.Input.Q),
        new CircuitEdge(CircuitNode.EMBEDDINGS, CircuitNode.head(1, 0), CircuitEdge.Input.K),
        new CircuitEdge(CircuitNode.mlp(0), CircuitNode.head(layers - 1, 0), CircuitEdge.Input.V),
        new CircuitEdge(CircuitNode.head(layers - 1, 0), CircuitNode.mlp(layers - 1), CircuitEdge.Input.MLP),
        new CircuitEdge(CircuitNode.EMBEDDINGS, CircuitNode.mlp(0), CircuitEdge.Input.MLP),
        new CircuitEdge(CircuitNode.head(0, 0), CircuitNode.LOGITS, CircuitEdge.Input.LOGITS),
        new CircuitEdge(CircuitNode.EMBEDDINGS, CircuitNode.LOGITS, CircuitEdge.Input.LOGITS));
    double eps = 0.1;
    double big = 0;
    for (CircuitEdge e : edges) {
      double d1 = central(a, e, eps);
      double d2 = central(a, e, eps / 2);
      double score = eap.score(index.get(e));
      // D(eps) = f'(0) + eps^2 f'''/6 + ...: the error of D(eps/2) is about |D(eps) - D(eps/2)| / 3; each D also
      // carries the metrics' float32 noise, 2 NOISE / (2 eps/2) at most
      double bound = Math.abs(d1 - d2) / 3 * 2 + NOISE / (eps / 2) + 1e-6;
      assertThat(Math.abs(score - d2)).as("%s: EAP %s, finite differences %s, %s", e, score, d2, d1).isLessThanOrEqualTo(bound);
      big = Math.max(big, Math.abs(score));
    }
    assertThat(big).as("some edge's estimate is not zero").isGreaterThan(1e-2);
  }

  /** {@code (f(eps) - f(-eps)) / 2 eps} of exact edge patching with the ablation scaled by eps. */
  private static double central(EdgeAnalysis a, CircuitEdge e, double eps) {
    double plus = a.scaled(eps).metricWithout(List.of(e));
    double minus = a.scaled(-eps).metricWithout(List.of(e));
    return (plus - minus) / (2 * eps);
  }

  @Test
  void eapIgIsTheRiemannSumAlongThePathAndTendsToItsIntegral() {
    EdgeAnalysis a = EdgeAnalysis.of(gpt, gptPair, gptMetric, Ablation.CORRUPTED, null);
    int layers = a.runs().layers;
    Map<CircuitEdge, Integer> index = a.graph().index();
    for (CircuitEdge e : List.of(new CircuitEdge(CircuitNode.head(0, 0), CircuitNode.LOGITS, CircuitEdge.Input.LOGITS),
        new CircuitEdge(CircuitNode.mlp(0), CircuitNode.LOGITS, CircuitEdge.Input.LOGITS))) {
      double[] delta = diff(a.runs().ablated.of(e.sender()), a.runs().clean.of(e.sender()));
      // m = 4: exactly the mean of the path derivative at alpha = 1/4 .. 1
      double riemann = 0;
      for (int k = 1; k <= 4; k++) {
        riemann += pathDerivative(a, delta, k / 4.0, layers) / 4;
      }
      double ig4 = a.eapIg(4).score(index.get(e));
      assertThat(Math.abs(ig4 - riemann)).as("%s: m = 4", e).isLessThanOrEqualTo(NOISE / 1e-2 + 1e-6);
      // the integral by Simpson's rule on 9 points, its own error from the 5-point rule
      double[] h = new double[9];
      for (int k = 0; k <= 8; k++) {
        h[k] = pathDerivative(a, delta, k / 8.0, layers);
      }
      double s9 = simpson(h, 1);
      double s5 = simpson(h, 2);
      int m = 64;
      double ig = a.eapIg(m).score(index.get(e));
      // a right Riemann sum of m points differs from the integral by (h(1) - h(0)) / (2m) + O(1/m^2)
      double bound = Math.abs(h[8] - h[0]) / (2.0 * m) * 1.5 + Math.abs(s9 - s5) + NOISE / 1e-2 + 1e-6;
      assertThat(Math.abs(ig - s9)).as("%s: m = %d, integral %s", e, m, s9).isLessThanOrEqualTo(bound);
      assertThat(Math.abs(s9)).as("the integral is not zero").isGreaterThan(1e-3);
    }
  }

  /**
   * d/dt of the metric when the input embeddings are {@code ablated + alpha (clean - ablated)} and the logits
   * read the stream plus {@code t delta} (pre-LayerNorm: the edge into the logits), by central differences.
   */
  private static double pathDerivative(EdgeAnalysis a, double[] delta, double alpha, int layers) {
    EdgeRuns r = a.runs();
    double[] z = new double[delta.length];
    for (int i = 0; i < z.length; i++) {
      z[i] = r.ablated.embed()[i] + alpha * (r.clean.embed()[i] - r.ablated.embed()[i]);
    }
    Activation x = r.model.run(RunRequest.of(r.in.clean()).intervene(new Intervention.Patch(HookPoint.embed(),
        r.activation(z, 1))).capture(Capture.points(HookPoint.Kind.RESID_POST))).cache().get(HookPoint.residPost(layers - 1));
    double t = 1e-2;
    return (stream(r, x, delta, t) - stream(r, x, delta, -t)) / (2 * t);
  }

  private static double stream(EdgeRuns r, Activation x, double[] delta, double t) {
    float[] v = x.data().clone();
    for (int i = 0; i < v.length; i++) {
      v[i] += (float) (t * delta[i]);
    }
    return EdgeRuns.value(r.metric, r.model.run(RunRequest.of(r.in.clean()).startingAt(layers(r), new Activation(v,
        x.shape())).read(Readouts.none().withLogProbs(r.in.positions()))).logProbs()[0]);
  }

  private static int layers(EdgeRuns r) {
    return r.layers;
  }

  private static double simpson(double[] h, int stride) {
    int n = (h.length - 1) / stride;
    double step = 1.0 / n;
    double s = h[0] + h[h.length - 1];
    for (int k = 1; k < n; k++) {
      s += (k % 2 == 1 ? 4 : 2) * h[k * stride];
    }
    return s * step / 3;
  }

  private static double[] diff(double[] a, double[] b) {
    double[] out = new double[a.length];
    for (int i = 0; i < a.length; i++) {
      out[i] = a[i] - b[i];
    }
    return out;
  }
}
