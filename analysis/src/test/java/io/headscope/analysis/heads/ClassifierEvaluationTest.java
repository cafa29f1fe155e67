package io.headscope.analysis.heads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.analysis.evaluation.Confusion;
import io.headscope.model.testing.FullModel;
import java.io.InputStream;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The classifier against the hand labels under grouped cross-validation ({@link ClassifierEvaluation}):
 * held-out inputs never share a sentence with the maps that trained the model or tuned the thresholds.
 * Prints the whole report ({@link ClassifierReport}, one fold assignment here; its main runs three).
 * The floors are the held-out results measured when the model was shipped, less a margin of about
 * two percentage points, so a regression fails; they never look at the training folds' results.
 */
@Tag("full-model")
@Tag("slow") // about 95 s (cross-validation over 1,384 maps): ./headscope test slow
class ClassifierEvaluationTest {
  /**
   * Held out, the two-labeller maps (all 1,384: sets 1 and 2 labelled again under the written definition,
   * and set 3) against the consensus: measured 0.858 (learned) and 0.806 (rule tuned per fold) when the
   * model trained on them was shipped.
   */
  static final double LEARNED_FLOOR = 0.838;
  static final double RULE_FLOOR = 0.786;
  /** On the sure maps (both labellers sure and agreeing): measured 0.975. */
  static final double LEARNED_SURE_FLOOR = 0.955;

  /** Per length bucket (<=32, 33-128, 129-512), two-labeller maps: measured 0.882, 0.862, 0.814, less two points. */
  static final double[] BUCKET_FLOORS = {0.862, 0.842, 0.794};

  private static List<ClassifierEvaluation.Map1> maps;
  private static ClassifierEvaluation.HeldOut heldOut;

  @BeforeAll
  static void crossValidate() throws Exception {
    maps = ClassifierEvaluation.score(FullModel.uncased(), LabelledMaps.loadAll());
    heldOut = ClassifierEvaluation.crossValidate(maps, ClassifierReport.SEEDS[0]);
    System.out.print(new ClassifierReport(maps, List.of(heldOut)).text());
  }

  @Test
  void theLabelSetsAreAsLargeAsTheIssueAsks() {
    long second = maps.stream().filter(m -> m.entry().twoLabellers()).count();
    long inputs = maps.stream().filter(m -> m.entry().twoLabellers()).map(m -> m.entry().input()).distinct().count();
    assertThat(second).isGreaterThanOrEqualTo(600);
    assertThat(inputs).isGreaterThanOrEqualTo(60);
    for (HeadPattern p : HeadPattern.values()) {
      assertThat(maps.stream().filter(m -> m.entry().twoLabellers() && m.entry().label() == p).count())
          .as("%s maps in the second set", p.label()).isGreaterThanOrEqualTo(20);
    }
  }

  @Test
  void everyMapIsHeldOutOnceAndFoldsNeverShareAnInput() {
    int[] fold = ClassifierEvaluation.folds(maps, ClassifierEvaluation.FOLDS, ClassifierReport.SEEDS[0]);
    java.util.Map<String, Integer> foldOfInput = new java.util.HashMap<>();
    for (int i = 0; i < maps.size(); i++) {
      Integer before = foldOfInput.putIfAbsent(maps.get(i).entry().input(), fold[i]);
      assertThat(before == null || before == fold[i]).as("input of %s in one fold", maps.get(i).entry().id()).isTrue();
    }
    assertThat(heldOut.learned()).doesNotContainNull();
    assertThat(heldOut.rule()).doesNotContainNull();
  }

  @Test
  void heldOutAgreementWithTheConsensusStaysAboveItsFloor() {
    Confusion learned = ClassifierEvaluation.confusion(maps, heldOut.learned(), ClassifierReport.SECOND);
    Confusion rule = ClassifierEvaluation.confusion(maps, heldOut.rule(), ClassifierReport.SECOND);
    Confusion sure = ClassifierEvaluation.confusion(maps, heldOut.learned(), ClassifierReport.SECOND_SURE);
    Confusion vertical = ClassifierEvaluation.confusion(maps,
        java.util.Collections.nCopies(maps.size(), HeadPattern.VERTICAL).toArray(HeadPattern[]::new), ClassifierReport.SECOND);
    assertThat(learned.agreement()).isGreaterThanOrEqualTo(LEARNED_FLOOR);
    assertThat(rule.agreement()).isGreaterThanOrEqualTo(RULE_FLOOR);
    assertThat(sure.agreement()).isGreaterThanOrEqualTo(LEARNED_SURE_FLOOR);
    // the default is the better of the two on held-out inputs, and both beat the trivial baseline
    assertThat(learned.agreement()).isGreaterThan(rule.agreement());
    assertThat(rule.agreement()).isGreaterThan(vertical.agreement() + 0.1);
    assertThat(HeadClassifier.Method.DEFAULT).isEqualTo(HeadClassifier.Method.LEARNED);
  }

  /**
   * Issue 32, by length bucket (<=32, 33-128, 129-512 tokens; maps two labellers saw): held out against the
   * consensus, within a margin of what was measured when the model was shipped, and at least 0.90 on the maps
   * both labellers called sure in every bucket (the issue's goal).
   */
  @Test
  void everyLengthBucketHoldsItsFloor() {
    List<LengthBuckets.Row> rows = LengthBuckets.rows(maps, heldOut.learned(), heldOut.learnedConfidence(),
        LearnedRule.UNCERTAIN_BELOW);
    System.out.print(LengthBuckets.table(rows));
    System.out.print(LengthBuckets.recall(maps, heldOut.learned()));
    System.out.print(LengthBuckets.calibration(maps, heldOut.learned(), heldOut.learnedConfidence()));
    java.util.Map<String, Double> floor = java.util.Map.of("<=32", BUCKET_FLOORS[0], "33-128", BUCKET_FLOORS[1],
        "129-512", BUCKET_FLOORS[2], "all", LEARNED_FLOOR);
    for (LengthBuckets.Row r : rows) {
      assertThat(r.learned()).as("held-out agreement, %s tokens", r.bucket()).isGreaterThanOrEqualTo(floor.get(r.bucket()));
      assertThat(r.learnedSure()).as("held-out agreement on sure maps, %s tokens", r.bucket()).isGreaterThanOrEqualTo(0.90);
    }
  }

  /** The uncertain threshold is what {@link UncertainThreshold} picks on these held-out predictions. */
  @Test
  void theUncertainThresholdIsChosenOnHeldOutMaps() {
    assertThat(UncertainThreshold.choose(maps, heldOut.learned(), heldOut.learnedConfidence()))
        .isEqualTo(LearnedRule.UNCERTAIN_BELOW);
  }

  /**
   * In every length bucket the confidence means something: the maps the classifier is at least 0.9 sure of
   * agree more often than any lower bin (of 20+ maps), and the maps it shows with a category agree more
   * often than those it calls uncertain.
   *
   * <p>The issue's goal is stronger: agreement rising bin by bin in every bucket. Measured against the
   * labels sets 1 and 2 were given again under the written definition it is <b>not met</b>: between the
   * 0.7-0.8 and 0.8-0.9 bins agreement is flat within noise in the longer buckets (129-512 tokens: 0.852 of 54
   * maps, then 0.730 of 63 on this fold assignment; pooled over three assignments 0.788 then 0.782, and 33-128
   * 0.828 then 0.811; METHODS.md, "Calibration"). The model trained on the earlier labels does not meet it
   * against these labels either (<=32: 0.465 then 0.458). Over all maps it still rises bin by bin (the
   * next test).
   */
  @Test
  void highConfidenceMeansHigherAgreementInEveryLengthBucket() {
    for (String b : ClassifierEvaluation.BUCKETS) {
      java.util.function.Predicate<LabelledMaps.Entry> inBucket =
          e -> e.twoLabellers() && maps.stream().anyMatch(m -> m.entry() == e && m.bucket().equals(b));
      var cal = ClassifierEvaluation.calibration(maps, heldOut.learned(), heldOut.learnedConfidence(), inBucket);
      var top = cal.bins().get(cal.bins().size() - 1);
      for (var bin : cal.bins().subList(0, cal.bins().size() - 1)) {
        if (bin.count() >= 20) {
          assertThat(top.agreement()).as("%s tokens: top bin above %s", b, bin).isGreaterThan(bin.agreement());
        }
      }
      var split = ClassifierEvaluation.calibration(maps, heldOut.learned(), heldOut.learnedConfidence(), inBucket,
          new double[] {LearnedRule.UNCERTAIN_BELOW});
      if (split.bins().get(0).count() >= 20) { // like the bins above: fewer maps say nothing
        assertThat(split.bins().get(1).agreement()).as("%s tokens: shown above uncertain", b)
            .isGreaterThan(split.bins().get(0).agreement());
      }
    }
  }

  /** Confidence means something: agreement rises from the low bins to the high (bins of 20+ maps). */
  @Test
  void agreementRisesWithTheLearnedModelsConfidence() {
    var cal = ClassifierEvaluation.calibration(maps, heldOut.learned(), heldOut.learnedConfidence(), ClassifierReport.SECOND);
    assertThat(cal.rises(20)).as("%s", cal).isTrue();
  }

  /** The shipped thresholds are what the search finds on every labelled map. */
  @Test
  void theShippedThresholdsAreTheSearchOnEveryLabelledMap() {
    List<ThresholdSearch.Scored> all = maps.stream().map(ClassifierEvaluation.Map1::scores).toList();
    assertThat(ThresholdSearch.agreement(all, Thresholds.DEFAULT))
        .isGreaterThanOrEqualTo(ThresholdSearch.agreement(all, ThresholdSearch.best(all)) - 1e-9);
  }

  /**
   * The shipped model is what {@link TrainClassifier} makes from the labels (nobody edited it by hand).
   *
   * <p>Exactly (1e-9) where this machine computes the labelled maps' features to the bits of the machine
   * that trained it, seen in the training data's per-feature means and deviations, which the model keeps.
   * A CPU whose matrix products round otherwise (an AMD CPU, or MKL in its default mode:
   * {@code -Dheadscope.mklCbwr=OFF}) moves the maps in their last bits; the few features that are
   * decisions (is a row's maximum in the top columns?) can flip on a map, and the refit moves with them
   * (measured with MKL's default mode on an Intel Xeon: probabilities by up to 7.6e-4). There the test
   * holds what does not depend on rounding: the same penalty and the same category on every labelled map.
   */
  @Test
  void theShippedModelIsTrainedOnEveryLabelledMap() throws Exception {
    LogisticModel shipped;
    try (InputStream in = LearnedRule.class.getResourceAsStream(LearnedRule.RESOURCE)) {
      shipped = LogisticModel.read(in);
    }
    LogisticModel again = TrainClassifier.train(maps);
    assertThat(shipped.l2()).isEqualTo(again.l2());
    boolean sameData = java.util.Arrays.equals(shipped.mean(), again.mean())
        && java.util.Arrays.equals(shipped.scale(), again.scale());
    double worst = 0;
    for (ClassifierEvaluation.Map1 m : maps) {
      double[] p = shipped.probabilities(m.features().values());
      double[] q = again.probabilities(m.features().values());
      if (sameData) {
        assertThat(p).containsExactly(q, within(1e-9));
      } else {
        assertThat(LogisticModel.argmax(p)).as("category of a labelled map").isEqualTo(LogisticModel.argmax(q));
        for (int c = 0; c < p.length; c++) {
          worst = Math.max(worst, Math.abs(p[c] - q[c]));
        }
      }
    }
    if (!sameData) {
      System.out.printf(java.util.Locale.ROOT, "the labelled maps' features differ from the training machine's in "
          + "their last bits here; refit probabilities differ by up to %.2e, no category changed%n", worst);
      assertThat(worst).as("refit on this machine's rounding").isLessThan(1e-2);
    }
  }
}
