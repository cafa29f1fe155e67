package io.headscope.analysis.circuits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.analysis.causal.PatchInputs;
import io.headscope.model.BertModel;
import io.headscope.model.decoders.DecoderFolders;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.Intervention;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.engine.RunResult;
import io.headscope.model.repository.ModelRepository;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Edges on today's pre-norm families, each against a brute force of whole engine runs written from the
 * definition (docs/METHODS.md, "Edges"): a tiny Llama (RMSNorm, rotary, 2 key/value heads of 4: k and v edges
 * enter key/value groups), a tiny Gemma (RMSNorm with 1 + w, embeddings times sqrt(d), one key/value head), a tiny
 * Pythia (GPT-NeoX's parallel residual, partial rotary: an MLP reads its layer's input, so no head of its layer
 * sends into it) and a tiny ModernBERT (LayerNorm without shift, no attention norm in layer 0, global and local
 * layers). Qwen2 and Mistral take Llama's path (biases and a window change no edge arithmetic).
 *
 * <p>Brute force of one edge ablated: the receiver's input is the clean run's stream at the point the receiver
 * reads ({@code hook_resid_pre}, for a sequential MLP {@code hook_resid_mid}, for the logits the last {@code
 * hook_resid_post}) plus the sender's corrupted-minus-clean output, both from whole runs' captures; the receiver
 * runs on it (its layer started there, its q, k or v taken at the hook, for a key/value group into every query
 * head of the group; an MLP's output taken at {@code hook_mlp_out}) inside an otherwise clean run. EdgeForward
 * instead sums the stream in Java from component outputs. EAP against central finite differences of exact
 * patching (EdgeAttributionTest's Richardson bound), EAP-IG at m = 4 against the right Riemann sum of the path
 * derivative by finite differences of the same brute-force runs, for edges into q, k, v, an MLP and the logits.
 */
class EdgeModernFamiliesTest {
  @TempDir static Path dir;
  static final Map<String, BertModel> models = new java.util.HashMap<>();
  static final Map<String, PatchInputs> pairs = new java.util.HashMap<>();
  static final Map<String, TargetMetric> metrics = new java.util.HashMap<>();
  /** As EdgePatchingTest: float32 runs of at most four layers of values below about 10. */
  static final double FLOAT32 = 5e-5;

  @BeforeAll
  static void load() {
    add("llama", DecoderFolders.write("llama", dir.resolve("llama"), 5), "a cab 12345", "a cab 54321");
    add("gemma", DecoderFolders.write("gemma", dir.resolve("gemma"), 7), "a cab 12345", "a cab 54321");
    add("gpt_neox", DecoderFolders.writeNeoxModern("gpt_neox", dir.resolve("neox"), 13), "a cab 12345", "a cab 54321");
    add("modernbert", DecoderFolders.writeNeoxModern("modernbert", dir.resolve("modern"), 17), "a cab a cab [MASK] a",
        "a cab cab a [MASK] a");
  }

  private static void add(String type, Path folder, String clean, String corrupted) {
    BertModel m = BertModel.load(new ModelRepository(dir.resolve("cache-" + type)).folder(folder));
    PatchInputs in = PatchInputs.of(m, clean, corrupted);
    long[] ids = in.clean().ids();
    models.put(type, m);
    pairs.put(type, in);
    metrics.put(type, new TargetMetric(TargetMetric.Kind.LOGIT_DIFF, ids[1], ids[2]));
  }

  @AfterAll
  static void close() {
    models.values().forEach(BertModel::close);
  }

  private static EdgeAnalysis analysis(String type) {
    return EdgeAnalysis.of(models.get(type), pairs.get(type), metrics.get(type), Ablation.CORRUPTED, null);
  }

  /** Edges of every kind: into a head's q, a key/value input, a value input, an MLP (from a head and the embeddings), the logits. */
  private static List<CircuitEdge> edges(EdgeAnalysis a) {
    CircuitGraph g = a.graph();
    int layers = g.layers();
    int hs = g.heads();
    List<CircuitEdge> out = new ArrayList<>(List.of(
        new CircuitEdge(CircuitNode.head(0, 1 % hs), CircuitNode.head(layers - 1, hs - 1), CircuitEdge.Input.Q),
        new CircuitEdge(CircuitNode.EMBEDDINGS, kv(g, 1, 0), CircuitEdge.Input.K),
        new CircuitEdge(CircuitNode.head(0, 2 % hs), kv(g, layers - 1, g.groups() - 1), CircuitEdge.Input.K),
        new CircuitEdge(CircuitNode.mlp(0), kv(g, layers - 1, g.groups() - 1), CircuitEdge.Input.V),
        new CircuitEdge(CircuitNode.head(0, 2 % hs), CircuitNode.mlp(layers - 1), CircuitEdge.Input.MLP),
        new CircuitEdge(CircuitNode.EMBEDDINGS, CircuitNode.mlp(0), CircuitEdge.Input.MLP),
        new CircuitEdge(CircuitNode.head(layers - 1, 0), CircuitNode.LOGITS, CircuitEdge.Input.LOGITS),
        new CircuitEdge(CircuitNode.mlp(layers - 1), CircuitNode.LOGITS, CircuitEdge.Input.LOGITS)));
    if (!g.parallel()) {
      out.add(new CircuitEdge(CircuitNode.head(layers - 1, 1), CircuitNode.mlp(layers - 1), CircuitEdge.Input.MLP));
    }
    for (CircuitEdge e : out) {
      assertThat(g.has(e)).as(e.label()).isTrue();
    }
    return out;
  }

  /**
   * One edge per input kind (a head's q, a key/value input's k and v, an MLP, the logits), for the checks that
   * cost several runs per edge (EAP: four exact patches; EAP-IG: sixteen runs).
   */
  private static List<CircuitEdge> perKind(EdgeAnalysis a) {
    List<CircuitEdge> all = edges(a);
    return List.of(all.get(0), all.get(2), all.get(3), all.get(4), all.get(7));
  }

  /** A k or v receiver: key/value group {@code i} where keys are shared, else head {@code i}. */
  private static CircuitNode kv(CircuitGraph g, int layer, int i) {
    return g.grouped() ? CircuitNode.group(layer, i) : CircuitNode.head(layer, i);
  }

  @ParameterizedTest
  @ValueSource(strings = {"llama", "gemma", "gpt_neox", "modernbert"})
  void theGraphHasTheFamilysReceivers(String type) {
    BertModel m = models.get(type);
    CircuitGraph g = analysis(type).graph();
    int layers = m.config().numHiddenLayers();
    int h = m.config().numAttentionHeads();
    int kv = m.config().parts().keyValueHeads();
    boolean parallel = type.equals("gpt_neox");
    assertThat(g.groups()).isEqualTo(kv);
    assertThat(g.parallel()).isEqualTo(parallel);
    // counted by hand: senders before each receiver input (stage order), one input per head's q, per group's k and
    // v (per head's k and v without groups), per MLP, and the logits; parallel: no head into its own layer's MLP
    long want = 0;
    for (int l = 0; l < layers; l++) {
      long before = 1 + (long) l * (h + 1); // embeddings and the layers below
      want += before * (h + 2L * kv);
      want += before + (parallel ? 0 : h);
    }
    want += 1 + (long) layers * (h + 1);
    assertThat(g.edges()).hasSize((int) want);
    if (parallel) {
      assertThat(g.has(new CircuitEdge(CircuitNode.head(0, 0), CircuitNode.mlp(0), CircuitEdge.Input.MLP))).isFalse();
    }
    if (kv < h) {
      assertThat(g.has(new CircuitEdge(CircuitNode.EMBEDDINGS, CircuitNode.head(1, 0), CircuitEdge.Input.K))).isFalse();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"llama", "gemma", "gpt_neox", "modernbert"})
  void exactEdgePatchingIsTheCleanStreamPlusTheSendersChange(String type) {
    EdgeAnalysis a = analysis(type);
    List<CircuitEdge> edges = edges(a);
    EdgeScores s = a.exact(edges);
    double moved = 0;
    for (int i = 0; i < edges.size(); i++) {
      double want = byHand(a, edges.get(i)) - a.clean();
      assertThat(s.score(i)).as("%s %s", type, edges.get(i).label()).isCloseTo(want, within(FLOAT32));
      moved = Math.max(moved, Math.abs(want));
    }
    assertThat(moved).as("some edge matters").isGreaterThan(1e-3);
  }

  @ParameterizedTest
  @ValueSource(strings = {"llama", "gemma", "gpt_neox", "modernbert"})
  void noEdgeAblatedIsTheCleanRunAndEveryEdgeTheCorruptedOne(String type) {
    EdgeAnalysis a = analysis(type);
    assertThat(a.metricWithout(List.of())).isCloseTo(a.clean(), within(FLOAT32));
    assertThat(a.empty()).isCloseTo(a.corrupted(), within(FLOAT32));
    assertThat(a.circuitMetric(a.graph().edges())).isCloseTo(a.clean(), within(FLOAT32));
    assertThat(Math.abs(a.clean() - a.corrupted())).as("the pair differs").isGreaterThan(1e-3);
  }

  @ParameterizedTest
  @ValueSource(strings = {"llama", "gemma", "gpt_neox", "modernbert"})
  void eapIsTheDerivativeOfExactEdgePatching(String type) {
    EdgeAnalysis a = analysis(type);
    EdgeScores eap = a.eap();
    Map<CircuitEdge, Integer> index = a.graph().index();
    double eps = 0.1;
    double big = 0;
    for (CircuitEdge e : perKind(a)) {
      double d1 = central(a, e, eps);
      double d2 = central(a, e, eps / 2);
      double score = eap.score(index.get(e));
      // EdgeAttributionTest's bound: D(eps/2)'s error about |D(eps) - D(eps/2)| / 3, doubled, plus the metrics'
      // float32 noise over the step
      double bound = Math.abs(d1 - d2) / 3 * 2 + FLOAT32 / (eps / 2) + 1e-6;
      assertThat(Math.abs(score - d2)).as("%s %s: EAP %s, finite differences %s, %s", type, e, score, d2, d1)
          .isLessThanOrEqualTo(bound);
      big = Math.max(big, Math.abs(score));
    }
    assertThat(big).as("some edge's estimate is not zero").isGreaterThan(1e-2);
  }

  private static double central(EdgeAnalysis a, CircuitEdge e, double eps) {
    return (a.scaled(eps).metricWithout(List.of(e)) - a.scaled(-eps).metricWithout(List.of(e))) / (2 * eps);
  }

  /** About 90 s for the four families (sixteen runs per edge and point): the slow tier. */
  @Tag("slow")
  @ParameterizedTest
  @ValueSource(strings = {"llama", "gemma", "gpt_neox", "modernbert"})
  void eapIgIsTheRiemannSumOfThePathDerivative(String type) {
    EdgeAnalysis a = analysis(type);
    EdgeScores ig = a.eapIg(4);
    Map<CircuitEdge, Integer> index = a.graph().index();
    double big = 0;
    for (CircuitEdge e : perKind(a)) {
      double[] delta = diff(a.runs().ablated.of(e.sender()), a.runs().clean.of(e.sender()));
      double riemann = 0;
      double error = 0;
      for (int k = 1; k <= 4; k++) {
        Activation path = pathEmbeddings(a.runs(), k / 4.0);
        double t = 0.05;
        double d1 = pathDerivative(a, e, path, delta, t);
        double d2 = pathDerivative(a, e, path, delta, t / 2);
        riemann += d2 / 4;
        // each derivative's truncation error (Richardson, as above) and float32 noise over the step
        error += (Math.abs(d1 - d2) / 3 * 2 + FLOAT32 / (t / 2)) / 4;
      }
      double score = ig.score(index.get(e));
      assertThat(Math.abs(score - riemann)).as("%s %s: EAP-IG %s, Riemann sum %s", type, e, score, riemann)
          .isLessThanOrEqualTo(error + 1e-6);
      big = Math.max(big, Math.abs(score));
    }
    assertThat(big).as("some edge's estimate is not zero").isGreaterThan(1e-2);
  }

  /** The embeddings {@code ablated + alpha (clean - ablated)}, (1, T, d). */
  private static Activation pathEmbeddings(EdgeRuns r, double alpha) {
    double[] z = new double[r.clean.embed().length];
    for (int i = 0; i < z.length; i++) {
      z[i] = r.ablated.embed()[i] + alpha * (r.clean.embed()[i] - r.ablated.embed()[i]);
    }
    return r.activation(z, 1);
  }

  /** d/dt of the metric of the run on {@code path} whose receiver reads its stream plus {@code t delta}, central differences. */
  private static double pathDerivative(EdgeAnalysis a, CircuitEdge e, Activation path, double[] delta, double t) {
    EdgeRuns r = a.runs();
    HookPoint at = inputPoint(r, e.receiver());
    Activation x = r.model.run(RunRequest.of(r.in.clean()).intervene(new Intervention.Patch(HookPoint.embed(), path))
        .capture(Capture.points(at.kind()))).cache().get(at);
    return (receiverOn(r, e, path, plus(x, delta, t)) - receiverOn(r, e, path, plus(x, delta, -t))) / (2 * t);
  }

  /** The metric with one edge ablated, by whole engine runs (the class comment). */
  static double byHand(EdgeAnalysis a, CircuitEdge e) {
    EdgeRuns r = a.runs();
    BertModel m = r.model;
    Capture all = Capture.points(HookPoint.Kind.EMBED, HookPoint.Kind.ATTN_RESULT, HookPoint.Kind.MLP_OUT,
        HookPoint.Kind.RESID_PRE, HookPoint.Kind.RESID_MID, HookPoint.Kind.RESID_POST);
    RunResult clean = m.run(RunRequest.of(r.in.clean()).capture(all));
    RunResult corrupted = m.run(RunRequest.of(r.in.corrupted()).capture(all));
    Activation x = clean.cache().get(inputPoint(r, e.receiver()));
    return receiverOn(r, e, null, plus(x, EdgePatchingTest.senderChange(e.sender(), clean, corrupted), 1));
  }

  /** Where the receiver's input is read: a head's and a parallel MLP's the layer's input, a sequential MLP's {@code hook_resid_mid}. */
  private static HookPoint inputPoint(EdgeRuns r, CircuitNode receiver) {
    return switch (receiver.kind()) {
      case HEAD, GROUP -> HookPoint.residPre(receiver.layer());
      case MLP -> r.parallel ? HookPoint.residPre(receiver.layer()) : HookPoint.of(HookPoint.Kind.RESID_MID, receiver.layer());
      default -> HookPoint.residPost(r.layers - 1);
    };
  }

  /**
   * The metric when the receiver of {@code e} runs on {@code input} inside the run on {@code path} (null: the clean
   * run), everything after it recomputed.
   */
  private static double receiverOn(EdgeRuns r, CircuitEdge e, Activation path, Activation input) {
    BertModel m = r.model;
    CircuitNode rec = e.receiver();
    Readouts read = Readouts.none().withLogProbs(r.in.positions());
    RunRequest b = RunRequest.of(r.in.clean()).read(read);
    if (path != null) {
      b = b.intervene(new Intervention.Patch(HookPoint.embed(), path));
    }
    switch (rec.kind()) {
      case HEAD, GROUP -> {
        HookPoint p = EdgeRuns.point(e.input(), rec.layer());
        Activation q = m.run(RunRequest.of(r.in.clean()).startingAt(rec.layer(), input).capture(Capture.points(p.kind()))
            .stoppingBefore(rec.layer() + 1)).cache().get(p); // (1, H, T, dh): a group's keys repeated per query head
        int size = rec.kind() == CircuitNode.Kind.GROUP ? r.heads / r.groups : 1;
        int first = rec.head() * size;
        b = b.intervene(new Intervention.Edit(p, v -> withHeads(v, q, first, size)));
      }
      case MLP -> {
        HookPoint p = HookPoint.of(HookPoint.Kind.MLP_OUT, rec.layer());
        RunRequest one = r.parallel ? RunRequest.of(r.in.clean()).startingAt(rec.layer(), input)
            : RunRequest.of(r.in.clean()).startingAt(rec.layer(), input)
                .intervene(new Intervention.Patch(HookPoint.of(HookPoint.Kind.RESID_MID, rec.layer()), input));
        Activation o = m.run(one.capture(Capture.points(HookPoint.Kind.MLP_OUT)).stoppingBefore(rec.layer() + 1))
            .cache().get(p);
        b = b.intervene(new Intervention.Patch(p, o));
      }
      default -> b = RunRequest.of(r.in.clean()).startingAt(r.layers, input).read(read);
    }
    return EdgeRuns.value(r.metric, m.run(b).logProbs()[0]);
  }

  private static Activation withHeads(Activation into, Activation from, int first, int count) {
    float[] data = into.data().clone();
    int[] s = into.shape();
    int block = s[2] * s[3];
    System.arraycopy(from.data(), first * block, data, first * block, count * block);
    return new Activation(data, s);
  }

  private static Activation plus(Activation x, double[] delta, double t) {
    float[] v = new float[x.data().length];
    for (int i = 0; i < v.length; i++) {
      v[i] = (float) (x.data()[i] + t * delta[i]);
    }
    return new Activation(v, x.shape());
  }

  private static double[] diff(double[] a, double[] b) {
    double[] out = new double[a.length];
    for (int i = 0; i < a.length; i++) {
      out[i] = a[i] - b[i];
    }
    return out;
  }
}
