package io.headscope.analysis.circuits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.analysis.causal.PatchInputs;
import io.headscope.model.engine.CompositionNorms.Mode;
import io.headscope.analysis.circuits.HeadDetectors.Kind;
import io.headscope.model.BertModel;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tools against a circuit planted by hand ({@link InductionModel}): every expectation comes from the
 * construction, none from a run of the tools. The previous-token head 1-2 and the induction head 2-3 must be
 * found by the detectors, their K-composition must be the construction's 1/sqrt(SUB), and on an induction pair
 * (the clean input repeats a sequence, the corrupted one changes the token whose earlier occurrence the last
 * token finds) exact edge patching and EAP-IG must put the three edges of the path first: the token's embedding
 * into 1-2's values, 1-2 into 2-3's keys, 2-3 into the logits. The path is serial (2-3 finds its key only through
 * the token 1-2 moved there), so each of the three edges alone carries the whole effect.
 */
@Tag("slow") // about 60 s (exact patching of all 110 edges, EAP-IG): ./headscope test slow
class InductionCircuitTest {
  @TempDir static Path dir;
  static BertModel model;
  static final long SEED = 43;

  @BeforeAll
  static void load() {
    String out = System.getProperty("headscope.induction.out");
    Path folder = out == null || out.isBlank() ? dir.resolve("induction") : Path.of(out);
    model = BertModel.load(InductionModel.write(folder, SEED));
  }

  @AfterAll
  static void close() {
    model.close();
  }

  static final CircuitNode PT = CircuitNode.head(InductionModel.PT_LAYER, InductionModel.PT_HEAD);
  static final CircuitNode IND = CircuitNode.head(InductionModel.IND_LAYER, InductionModel.IND_HEAD);
  static final List<CircuitEdge> PATH = List.of(
      new CircuitEdge(CircuitNode.EMBEDDINGS, PT, CircuitEdge.Input.V),
      new CircuitEdge(PT, IND, CircuitEdge.Input.K),
      new CircuitEdge(IND, CircuitNode.LOGITS, CircuitEdge.Input.LOGITS));

  @Test
  void theModelPredictsTheRepeatedHalf() {
    int n = 20;
    List<Encoding> seqs = HeadDetectors.repeatedRandomTokens(model, n, 8, 1);
    int t = 2 * n;
    int[] all = new int[t];
    for (int i = 0; i < t; i++) {
      all[i] = i;
    }
    float[][][] lp = model.run(RunRequest.of(seqs).read(Readouts.none().withLogProbs(all))).logProbs();
    int right = 0;
    int total = 0;
    for (int b = 0; b < seqs.size(); b++) {
      long[] ids = seqs.get(b).ids();
      for (int i = n; i < t - 1; i++) {
        // a token drawn twice in the first half has two successors to copy: the prediction is a coin toss
        int seen = 0;
        for (int j = 0; j < n; j++) {
          seen += ids[j] == ids[i] ? 1 : 0;
        }
        if (seen > 1) {
          continue;
        }
        total++;
        if (argmax(lp[b][i]) == ids[i + 1]) {
          right++;
        }
      }
    }
    System.out.printf("induction model: %d of %d second-half tokens predicted%n", right, total);
    // by construction every one; a chance overlap of two tokens' 16-coordinate codes may cost a few
    assertThat(right).as("second-half tokens predicted").isGreaterThanOrEqualTo((int) Math.ceil(0.95 * total));
  }

  @Test
  void theDetectorsFindThePlantedHeads() {
    int n = 20;
    HeadDetectors.Result r = HeadDetectors.detect(model, n, 8, 0);
    // the rows that have an induction target at all (the second half, and any first-half repeat)
    double targets = 0;
    for (Encoding e : HeadDetectors.repeatedRandomTokens(model, n, 8, 0)) {
      double[][] d = HeadDetectors.pattern(Kind.INDUCTION, e.ids());
      for (double[] row : d) {
        targets += java.util.Arrays.stream(row).sum() > 0 ? 1.0 / (2 * n) / 8 : 0;
      }
    }
    print(r);
    // 1-2's previous-token score: every row but the first puts (nearly) all its weight on the token before
    assertThat(r.score(Kind.PREVIOUS_TOKEN, InductionModel.PT_LAYER, InductionModel.PT_HEAD))
        .isGreaterThanOrEqualTo(0.95 * (2 * n - 1) / (2.0 * n));
    assertThat(r.score(Kind.INDUCTION, InductionModel.IND_LAYER, InductionModel.IND_HEAD))
        .isGreaterThanOrEqualTo(0.9 * targets);
    for (int l = 0; l < 2; l++) {
      for (int h = 0; h < InductionModel.HEADS; h++) {
        if (l != InductionModel.PT_LAYER || h != InductionModel.PT_HEAD) {
          assertThat(r.score(Kind.PREVIOUS_TOKEN, l, h)).as("previous-token %d-%d", l + 1, h + 1)
              .isLessThan(0.5 * r.score(Kind.PREVIOUS_TOKEN, InductionModel.PT_LAYER, InductionModel.PT_HEAD));
        }
        if (l != InductionModel.IND_LAYER || h != InductionModel.IND_HEAD) {
          assertThat(r.score(Kind.INDUCTION, l, h)).as("induction %d-%d", l + 1, h + 1)
              .isLessThan(0.5 * r.score(Kind.INDUCTION, InductionModel.IND_LAYER, InductionModel.IND_HEAD));
        }
      }
    }
  }

  @Test
  void theKCompositionIsTheConstructionsAndFarAboveRandom() {
    Map<Mode, CompositionResult> c = CompositionScores.of(model, EnumSet.allOf(Mode.class));
    double k = c.get(Mode.K).score(InductionModel.PT_LAYER, InductionModel.PT_HEAD, InductionModel.IND_LAYER,
        InductionModel.IND_HEAD);
    double baseline = CompositionScores.baseline(model, Mode.K, CompositionScores.BASELINE_DRAWS,
        CompositionScores.BASELINE_SEED).mean();
    System.out.printf("K-composition 1-2 -> 2-3: %.6f, random baseline %.4f%n", k, baseline);
    // A, B and A B^T are each a SUB x SUB identity block times one value a, b, ab: Frobenius norms sqrt(SUB) times
    // those, so ||A B^T|| / (||A|| ||B||) = 1 / sqrt(SUB); float32 sums of SUB equal products, relative error a
    // few 1e-7
    assertThat(k).isCloseTo(1 / Math.sqrt(InductionModel.SUB), within(1e-5));
    // A writes only PREV, which the receiver's query and value never read: no Q- or V-composition
    for (Mode m : List.of(Mode.Q, Mode.V)) {
      assertThat(c.get(m).score(InductionModel.PT_LAYER, InductionModel.PT_HEAD, InductionModel.IND_LAYER,
          InductionModel.IND_HEAD)).as(m.toString()).isLessThan(1e-3);
    }
    for (int h1 = 0; h1 < InductionModel.HEADS; h1++) {
      for (int h2 = 0; h2 < InductionModel.HEADS; h2++) {
        if (h1 != InductionModel.PT_HEAD || h2 != InductionModel.IND_HEAD) {
          assertThat(c.get(Mode.K).score(0, h1, 1, h2)).as("K %d -> %d", h1, h2).isLessThan(k / 2);
        }
      }
    }
    assertThat(k).isGreaterThan(3 * baseline);
  }

  /** The clean input: n random tokens, then the first k + 1 again; the corrupted one changes token k of the first half. */
  static PatchInputs pair(int n, int k) {
    Encoding r = HeadDetectors.repeatedRandomTokens(model, n, 1, 7).get(0);
    int t = n + k + 1;
    long[] clean = java.util.Arrays.copyOf(r.ids(), t);
    long[] corrupted = clean.clone();
    Set<Long> used = new HashSet<>();
    for (long id : clean) {
      used.add(id);
    }
    // the replacement: of the tokens in neither half, the one whose sub-code is least like token k's, so that no key
    // of the corrupted input matches the last token by chance (random codes of SUB coordinates can overlap by half)
    float[][] codes = InductionModel.codes(model.tokenizer().vocabSize(), SEED);
    long x = -1;
    double best = Double.MAX_VALUE;
    for (long v = 0; v < codes.length; v++) {
      if (used.contains(v) || model.tokenizer().specialIds().contains(v)) {
        continue;
      }
      double cross = 0;
      for (int m = 0; m < InductionModel.SUB; m++) {
        cross += codes[(int) v][m] * codes[(int) clean[k]][m];
      }
      if (Math.abs(cross) < best) {
        best = Math.abs(cross);
        x = v;
      }
    }
    corrupted[k] = x;
    used.add(x);
    contrast = unused(used);
    return PatchInputs.of(model, encoding(clean), encoding(corrupted));
  }

  /** The contrast of the pair: a token in neither input. */
  static long contrast;

  static long unused(Set<Long> used) {
    long x = 'Q';
    while (used.contains(x) || model.tokenizer().specialIds().contains(x)) {
      x++;
    }
    return x;
  }

  static Encoding encoding(long[] ids) {
    List<String> tokens = new ArrayList<>();
    for (long id : ids) {
      tokens.add(model.tokenizer().vocabToken(id));
    }
    return new Encoding(tokens, ids, new long[ids.length], -1, 0);
  }

  @Test
  void exactPatchingAndEapIgPutThePlantedPathFirst() {
    int n = 10;
    int k = 5;
    PatchInputs in = pair(n, k);
    long[] ids = in.clean().ids();
    // the next token repeats token k + 1; against a token in neither input (the logit difference has no softmax
    // to saturate, a log-probability near 0 would have)
    TargetMetric metric = new TargetMetric(TargetMetric.Kind.LOGIT_DIFF, ids[k + 1], contrast);
    EdgeAnalysis a = EdgeAnalysis.of(model, in, metric, Ablation.CORRUPTED, null);
    double effect = a.corrupted() - a.clean();
    System.out.printf("clean %.4f corrupted %.4f%n", a.clean(), a.corrupted());
    EdgeScores exact = a.exact(a.graph().edges());
    EdgeScores ig = a.eapIg(20);
    EdgeScores eap = a.eap();
    Map<CircuitEdge, Integer> index = a.graph().index();
    for (int i : exact.top(8)) {
      CircuitEdge e = exact.edges().get(i);
      System.out.printf("%-16s exact %+.4f eap-ig %+.4f eap %+.4f%n", e, exact.score(i), ig.score(index.get(e)),
          eap.score(index.get(e)));
    }
    assertThat(-effect).as("the corruption removes the induction").isGreaterThan(5);
    assertThat(new HashSet<>(exact.topEdges(3))).isEqualTo(new HashSet<>(PATH));
    assertThat(new HashSet<>(ig.topEdges(3))).isEqualTo(new HashSet<>(PATH));
    for (CircuitEdge e : PATH) {
      // serial path: each edge alone ablated loses (nearly) the whole effect
      assertThat(exact.score(index.get(e)) / effect).as(e.label()).isGreaterThan(0.9);
    }
    Faithfulness f = a.faithfulness(ig, new int[] {1, 2, 3, 10}, 3, () -> false);
    for (Faithfulness.Point p : f.points()) {
      System.out.printf("top %d: kept %.4f%n", p.edges(), p.kept());
    }
    assertThat(f.points().get(2).kept()).as("the three edges keep the behaviour").isGreaterThan(0.9);
    assertThat(f.points().get(1).kept()).as("two of them do not").isLessThan(0.5);
  }

  private static int argmax(float[] v) {
    int best = 0;
    for (int i = 1; i < v.length; i++) {
      if (v[i] > v[best]) {
        best = i;
      }
    }
    return best;
  }

  private static void print(HeadDetectors.Result r) {
    for (Kind kind : Kind.values()) {
      StringBuilder s = new StringBuilder(kind.column() + ":");
      for (int l = 0; l < 2; l++) {
        for (int h = 0; h < InductionModel.HEADS; h++) {
          s.append(String.format(" %d-%d %.3f", l + 1, h + 1, r.score(kind, l, h)));
        }
      }
      System.out.println(s);
    }
  }
}
