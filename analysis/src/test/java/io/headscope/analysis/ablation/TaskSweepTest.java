package io.headscope.analysis.ablation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.GradientRequest;
import io.headscope.model.engine.Intervention;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.store.ProgressListener;
import io.headscope.model.testing.Float32Bounds;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.testing.families.ReferenceBertSteps;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The task sweep, task importance and pruning against plain forward passes (one input, one mask at a
 * time) on a small random BERT with a three-class classifier head.
 */
class TaskSweepTest {
  static final int LAYERS = 2;
  static final int HEADS = 3;
  static final String[][] TEXTS = {
      {"the cat sat on the mat .", null}, {"a dog ran in the city", null}, {"she was a queen", "he was a king"},
      {"big red car", null}, {"the man is in paris", "the woman is in france"}, {"hello world !", null},
      {"they walk at night", "we run in the day"}, {"it is good", null}, {"this house is small and blue", null},
      {"the capital city of france is paris", "paris"}};

  @TempDir static Path dir;
  static BertModel model;
  static List<Encoding> inputs = new ArrayList<>();
  static int[] gold;
  static int[] intactPredictions;
  static ReferenceBertSteps reference;

  @BeforeAll
  static void load() {
    // a larger classifier weight spreads the (random) predictions over the classes
    model = BertModel.load(TinyBert.create(LAYERS, HEADS, 11).withClassifier("neg", "neutral", "pos")
        .edit("classifier.weight", w -> {
          for (int i = 0; i < w.length; i++) {
            w[i] *= 8;
          }
        }).writeTo(dir.resolve("tiny-classifier")));
    reference = new ReferenceBertSteps(dir.resolve("tiny-classifier"));
    for (String[] t : TEXTS) {
      inputs.add(model.encode(t[0], t[1]));
    }
    // gold labels made from plain passes: right on the even inputs, wrong on the odd ones
    intactPredictions = new int[inputs.size()];
    gold = new int[inputs.size()];
    for (int i = 0; i < inputs.size(); i++) {
      intactPredictions[i] = TaskSweep.argMax(plain(inputs.get(i), Set.of(), HeadMask.Mode.ZERO));
      gold[i] = i % 2 == 0 ? intactPredictions[i] : (intactPredictions[i] + 1) % 3;
    }
  }

  @AfterAll
  static void close() {
    model.close();
  }

  /** The classifier's probabilities of one input alone, with {@code off} switched off. */
  static float[] plain(Encoding e, Set<Head> off, HeadMask.Mode mode) {
    float[][] m = new float[LAYERS][HEADS];
    for (float[] row : m) {
      Arrays.fill(row, 1f);
    }
    for (Head h : off) {
      m[h.layer()][h.head()] = 0f;
    }
    RunRequest r = RunRequest.of(e).read(Readouts.none().withClassifier());
    if (!off.isEmpty()) {
      r = r.intervene(new Intervention.HeadMasks(new float[][][] {m}, mode));
    }
    return model.run(r).classProbabilities()[0];
  }

  /** {accuracy, macro-F1, mean log-likelihood} from plain passes, F1 from a confusion matrix. */
  static double[] plainScores(Set<Head> off, HeadMask.Mode mode) {
    long[][] confusion = new long[3][3];
    double ll = 0;
    int correct = 0;
    for (int i = 0; i < inputs.size(); i++) {
      float[] p = plain(inputs.get(i), off, mode);
      int said = TaskSweep.argMax(p);
      confusion[gold[i]][said]++;
      correct += said == gold[i] ? 1 : 0;
      ll += Math.log(p[gold[i]]);
    }
    return new double[] {correct / (double) inputs.size(), macroF1(confusion), ll / inputs.size()};
  }

  /** Precision and recall per class from the matrix, F1 their harmonic mean, over classes seen at all. */
  static double macroF1(long[][] c) {
    double sum = 0;
    int seen = 0;
    for (int k = 0; k < c.length; k++) {
      long row = Arrays.stream(c[k]).sum(); // gold k
      long col = 0;
      for (long[] r : c) {
        col += r[k]; // said k
      }
      if (row + col == 0) {
        continue;
      }
      seen++;
      double precision = col == 0 ? 0 : c[k][k] / (double) col;
      double recall = row == 0 ? 0 : c[k][k] / (double) row;
      sum += precision + recall == 0 ? 0 : 2 * precision * recall / (precision + recall);
    }
    return sum / seen;
  }

  @Test
  void baselineAccuracyIsTheShareOfGoldLabelsTheIntactModelPredicts() {
    TaskResult r = new TaskSweep(model).run(inputs, gold, new TaskSweep.Options(HeadMask.Mode.ZERO, false, 4),
        ProgressListener.NONE, () -> false);
    assertThat(r.baseline().accuracy()).isEqualTo(0.5); // 5 of 10 by construction
    assertThat(r.inputs()).isEqualTo(10);
  }

  @ParameterizedTest
  @EnumSource(HeadMask.Mode.class)
  void sweepEqualsOnePlainPassPerHeadAndPerLayer(HeadMask.Mode mode) {
    // batch 3: groups of different widths, the last one short
    TaskResult r = new TaskSweep(model).run(inputs, gold, new TaskSweep.Options(mode, true, 3),
        ProgressListener.NONE, () -> false);
    double[] base = plainScores(Set.of(), mode);
    assertThat(r.baseline().accuracy()).isEqualTo(base[0]);
    assertThat(r.baseline().macroF1()).isCloseTo(base[1], within(1e-12));
    assertThat(r.baseline().loglik()).isCloseTo(base[2], within(1e-5));
    int changed = 0;
    for (Head h : Head.all(LAYERS, HEADS)) {
      double[] plain = plainScores(Set.of(h), mode);
      TaskScores s = r.headScores()[h.layer()][h.head()];
      assertThat(s.accuracy()).as("accuracy %s", h).isEqualTo(plain[0]);
      assertThat(s.macroF1()).as("F1 %s", h).isCloseTo(plain[1], within(1e-12));
      assertThat(s.loglik()).as("loglik %s", h).isCloseTo(plain[2], within(1e-5));
      changed += s.accuracy() != base[0] ? 1 : 0;
    }
    for (int l = 0; l < LAYERS; l++) {
      Set<Head> layer = new HashSet<>(Head.parseList(String.valueOf(l + 1), LAYERS, HEADS));
      double[] plain = plainScores(layer, mode);
      assertThat(r.layerScores()[l].accuracy()).isEqualTo(plain[0]);
      assertThat(r.layerScores()[l].macroF1()).isCloseTo(plain[1], within(1e-12));
      assertThat(r.layerScores()[l].loglik()).isCloseTo(plain[2], within(1e-5));
    }
    assertThat(changed).as("some head's removal changes the accuracy, so the test can see a wrong row")
        .isPositive();
  }

  @Test
  void macroF1OverClassesInGoldOrPredictionsMatchesAHandCount() {
    // confusion (gold x said): 0->0 twice, 0->1 once, 1->1 once, 1->0 once, 2->1 once; class 3 never occurs
    int[] g = {0, 0, 0, 1, 1, 2};
    int[] p = {0, 0, 1, 1, 0, 1};
    TaskScores s = TaskScores.of(g, p, new double[] {-1, -2, -3, -4, -5, -6}, 4);
    // F1: class 0 = 2*2/(4+1+1) = 2/3; class 1 = 2/(2+2+1) = 0.4; class 2 = 0/(0+0+1) = 0; class 3 left out
    assertThat(s.macroF1()).isCloseTo((2.0 / 3 + 0.4 + 0) / 3, within(1e-15));
    assertThat(s.accuracy()).isEqualTo(0.5);
    assertThat(s.loglik()).isEqualTo(-3.5);
  }

  /**
   * The engine's float32 gradient of the cross-entropy in each head's multiplier against the derivative
   * of the same cross-entropy taken in float64 ({@link ReferenceBertSteps#headMultiplierDerivative}; pairs
   * with their token types, the pooler and the classifier), within {@link Float32Bounds#gradient} of the
   * terms' scale: a bound of the float32 backward pass alone, so it holds on any CPU (see HeadImportanceTest).
   */
  @Test
  void taskImportanceMatchesTheFloat64DerivativeOfTheCrossEntropy() {
    double largest = 0;
    for (int i : new int[] {2, 5}) {
      Encoding e = inputs.get(i);
      var g = model.gradient(GradientRequest.classifierHeadMask(e, gold[i], List.of()));
      var ce = crossEntropy64(e, gold[i], null);
      double intact = ce.applyAsDouble(null);
      assertThat(g.loss()).isCloseTo(intact,
          within(Float32Bounds.forward(model.config(), e.length()) * Math.max(1, Math.abs(intact))));
      double bound = Float32Bounds.gradient(model.config(), e.length());
      for (Head h : Head.all(LAYERS, HEADS)) {
        double[] d = ReferenceBertSteps.headMultiplierDerivative(ce, h.layer(), h.head(), e.length(),
            model.config().hiddenSize());
        assertThat(g.headMask()[h.layer()][h.head()]).as("input %d head %s", i, h)
            .isCloseTo(d[0], within(bound * Math.max(d[1], 1e-3)));
        largest = Math.max(largest, Math.abs(d[0]));
      }
    }
    assertThat(largest).as("the heads matter to the loss").isGreaterThan(1e-2);
  }

  /**
   * The float64 cross-entropy of {@code label} on {@code e}, heads in {@code off} switched off (result 0,
   * as mode zero), then the edit given.
   */
  private static java.util.function.ToDoubleFunction<ReferenceBertSteps.ResultEdit> crossEntropy64(Encoding e,
      int label, Head off) {
    double[][] x = reference.embeddings(e.ids(), e.segments());
    return edit -> {
      double[] logits = reference.classifierLogits(x, (l, result) -> {
        if (off != null) {
          ReferenceBertSteps.scaling(off.layer(), off.head(), -1, -1, 0).edit(l, result);
        }
        if (edit != null) {
          edit.edit(l, result);
        }
      });
      return -ReferenceBertSteps.logSoftmax(logits)[label];
    };
  }

  /**
   * A batch sums in another order than one input alone (and on an AMD CPU, or MKL outside its strict
   * mode, in another order for each shape): each loss is within {@link Float32Bounds#forward} of its
   * exact value relative to its scale, each gradient within {@link Float32Bounds#gradient}, so the two
   * computations within twice that of each other (the scale at least 1: a loss or gradient near 0 still
   * sums terms of order 1).
   */
  @Test
  void batchedGradientsAreEachInputsOwnGradient() {
    Set<Head> off = Set.of(new Head(1, 0));
    var masks = Intervention.heads(HeadMask.of(off, HeadMask.Mode.ZERO), model.config());
    var batched = model.classifierGradients(new io.headscope.model.engine.ClassifierGradients(inputs, gold,
        List.of(masks)));
    for (int i = 0; i < inputs.size(); i++) {
      var one = model.gradient(GradientRequest.classifierHeadMask(inputs.get(i), gold[i], List.of(masks)));
      int tokens = inputs.get(i).length();
      double forward = 2 * Float32Bounds.forward(model.config(), tokens);
      double backward = 2 * Float32Bounds.gradient(model.config(), tokens);
      assertThat(batched.losses()[i]).isCloseTo(one.loss(), within(forward * Math.max(1, Math.abs(one.loss()))));
      for (Head h : Head.all(LAYERS, HEADS)) {
        double single = one.headMask()[h.layer()][h.head()];
        assertThat(batched.headMask()[i][h.layer()][h.head()]).as("input %d head %s", i, h)
            .isCloseTo(single, within(backward * Math.max(1, Math.abs(single))));
      }
    }
  }

  /** The gradient of the pruned model (a head at 0), against its float64 derivative as above. */
  @Test
  void taskImportanceWithPrunedHeadsDifferentiatesThePrunedModel() {
    Encoding e = inputs.get(4);
    Head pruned = new Head(0, 1);
    var masks = Intervention.heads(HeadMask.of(Set.of(pruned), HeadMask.Mode.ZERO), model.config());
    var g = model.gradient(GradientRequest.classifierHeadMask(e, gold[4], List.of(masks)));
    assertThat(g.headMask()[0][1]).as("a head already at 0 has no gradient in zero mode").isZero();
    Head other = new Head(1, 2);
    double[] d = ReferenceBertSteps.headMultiplierDerivative(crossEntropy64(e, gold[4], pruned), other.layer(),
        other.head(), e.length(), model.config().hiddenSize());
    assertThat(g.headMask()[1][2])
        .isCloseTo(d[0], within(Float32Bounds.gradient(model.config(), e.length()) * Math.max(d[1], 1e-3)));
    assertThat(Math.abs(d[0])).as("the head matters to the pruned model's loss").isGreaterThan(1e-3);
  }

  @Test
  void scheduleRoundsHalfUpAndEndsWithAllHeads() {
    assertThat(Pruning.schedule(144, 0.1)).containsExactly(0, 14, 29, 43, 58, 72, 86, 101, 115, 130, 144);
    assertThat(Pruning.schedule(6, 0.1)).containsExactly(0, 1, 2, 3, 4, 5, 6); // 0.6 -> 1, 1.2 -> 1 left out, ...
    assertThat(Pruning.schedule(6, 0.25)).containsExactly(0, 2, 3, 5, 6); // 1.5 -> 2, 3, 4.5 -> 5, 6
    assertThatThrownBy(() -> Pruning.schedule(6, 0)).isInstanceOf(HeadScopeException.class);
  }

  @Test
  void randomPruningIsReproducibleAndEachStepIsAPlainPassWithThoseHeadsOff() {
    ClassifierTarget target = new ClassifierTarget(model, inputs, gold, HeadMask.Mode.ZERO, 4);
    Pruning.Curve a = Pruning.run(target, LAYERS, HEADS, Pruning.Order.RANDOM, 0.25, 42, ProgressListener.NONE,
        () -> false);
    Pruning.Curve b = Pruning.run(target, LAYERS, HEADS, Pruning.Order.RANDOM, 0.25, 42, ProgressListener.NONE,
        () -> false);
    assertThat(a).isEqualTo(b);
    assertThat(a.steps()).extracting(Pruning.Step::headsPruned).containsExactly(0, 2, 3, 5, 6);
    for (Pruning.Step s : a.steps()) {
      assertThat(s.metric()).as("step %d", s.step())
          .isEqualTo(plainScores(new HashSet<>(s.pruned()), HeadMask.Mode.ZERO)[0]);
    }
    assertThat(a.steps().get(0).metric()).isEqualTo(0.5);
    Pruning.Curve other = Pruning.run(target, LAYERS, HEADS, Pruning.Order.RANDOM, 0.25, 43, ProgressListener.NONE,
        () -> false);
    assertThat(other.steps().get(4).pruned()).as("another seed, another order")
        .isNotEqualTo(a.steps().get(4).pruned());
  }

  @Test
  void importancePruningRemovesTheLeastImportantRemainingHeadOfThePrunedModel() {
    ClassifierTarget target = new ClassifierTarget(model, inputs, gold, HeadMask.Mode.ZERO, 4);
    Pruning.Curve c = Pruning.run(target, LAYERS, HEADS, Pruning.Order.IMPORTANCE, 0.1, 0, ProgressListener.NONE,
        () -> false);
    assertThat(c.steps()).hasSize(7);
    Set<Head> off = new HashSet<>();
    for (int k = 1; k < c.steps().size(); k++) {
      // importance by hand: mean |gradient| over the inputs with the heads so far at 0, normalised per layer
      double[][] imp = new double[LAYERS][HEADS];
      var masks = Intervention.heads(HeadMask.of(off, HeadMask.Mode.ZERO), model.config());
      for (int i = 0; i < inputs.size(); i++) {
        var g = model.gradient(GradientRequest.classifierHeadMask(inputs.get(i), gold[i],
            masks == null ? List.of() : List.of(masks)));
        for (Head h : Head.all(LAYERS, HEADS)) {
          imp[h.layer()][h.head()] += Math.abs(g.headMask()[h.layer()][h.head()]) / inputs.size();
        }
      }
      Head least = null;
      double best = Double.MAX_VALUE;
      for (Head h : Head.all(LAYERS, HEADS)) {
        double norm = Math.sqrt(Arrays.stream(imp[h.layer()]).map(v -> v * v).sum());
        double v = norm > 0 ? imp[h.layer()][h.head()] / norm : 0;
        if (!off.contains(h) && v < best) {
          best = v;
          least = h;
        }
      }
      assertThat(c.steps().get(k).pruned().get(k - 1)).as("step %d", k).isEqualTo(least);
      off.add(least);
    }
  }

  @Test
  void sweepOrderPrunesTheMostHarmlessRemovalFirst() {
    ClassifierTarget target = new ClassifierTarget(model, inputs, gold, HeadMask.Mode.ZERO, 4);
    Pruning.Curve c = Pruning.run(target, LAYERS, HEADS, Pruning.Order.SWEEP, 0.5, 0, ProgressListener.NONE,
        () -> false);
    List<Head> order = c.steps().get(c.steps().size() - 1).pruned();
    double base = plainScores(Set.of(), HeadMask.Mode.ZERO)[2];
    for (int k = 1; k < order.size(); k++) {
      double before = plainScores(Set.of(order.get(k - 1)), HeadMask.Mode.ZERO)[2] - base;
      double after = plainScores(Set.of(order.get(k)), HeadMask.Mode.ZERO)[2] - base;
      assertThat(before).isGreaterThanOrEqualTo(after - 1e-5);
    }
  }

  @Test
  void withEveryHeadOffTheClassifierSeesOnlyItsOwnClsTokenAndPredictsOneClassForAll() {
    Set<Head> all = new HashSet<>(Head.all(LAYERS, HEADS));
    float[] first = plain(inputs.get(0), all, HeadMask.Mode.ZERO);
    for (Encoding e : inputs) {
      float[] p = plain(e, all, HeadMask.Mode.ZERO);
      for (int c = 0; c < 3; c++) {
        assertThat(p[c]).isCloseTo(first[c], within(1e-6f));
      }
    }
  }

  @Test
  void aModelWithoutAClassifierIsRefusedInOneLine() {
    BertModel plainBert = BertModel.load(TinyBert.create(1, 2, 3).writeTo(dir.resolve("no-classifier")));
    try (plainBert) {
      assertThatThrownBy(() -> new TaskSweep(plainBert)).isInstanceOf(HeadScopeException.class)
          .hasMessageContaining("no sequence-classification head");
    }
  }
}
