package io.headscope.analysis.heads;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.Head;
import io.headscope.model.testing.FullModel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Agreement of the classifier with the maps labelled by eye (labels/README.md). The labels were made
 * without seeing the classifier; they are never changed to fit it.
 *
 * <p>Protocol: the thresholds are searched on the even-numbered maps only ({@link ThresholdSearch});
 * {@link Thresholds#DEFAULT} is what that search gave; agreement is measured on the odd-numbered maps,
 * which took no part in choosing the thresholds. Prints both halves' agreement, the held-out confusion
 * matrix, and the spread of held-out agreement over every threshold set tied on the tuning half (so a
 * lucky tie-break shows).
 *
 * <p>Caveat: the features themselves (vertical focus, the diagonal outside the top columns, the
 * distance-matched block score, replacing the first version's raw band and within-segment masses) were
 * designed after looking at the maps the first version got wrong in both halves, so the held-out
 * figure is somewhat optimistic about features; the thresholds never saw the odd half.
 */
@Tag("full-model")
class AgreementWithHandLabelsTest {
  /**
   * Held-out agreement measured when the defaults were set: 0.875 (105 of 120; 0.974 on the 78 maps
   * not marked borderline; the first version reached 0.808). The floor is that minus 0.02 (two maps),
   * so a regression fails.
   */
  static final double HELD_OUT_FLOOR = 0.855;

  private static List<ThresholdSearch.Scored> tune;
  private static List<ThresholdSearch.Scored> test;

  @BeforeAll
  static void scoreEveryLabelledMap() throws Exception {
    BertModel model = FullModel.uncased();
    LabelledMaps labels = LabelledMaps.load();
    Map<String, AttentionTrace> traces = new HashMap<>();
    tune = new ArrayList<>();
    test = new ArrayList<>();
    for (LabelledMaps.Entry e : labels.entries()) {
      AttentionTrace t = traces.computeIfAbsent(e.a() + "\t" + e.b(), k -> model.trace(model.encode(e.a(), e.b())));
      ThresholdSearch.Scored s = ThresholdSearch.Scored.of(e, t, new Head(e.layer(), e.head()));
      (e.number() % 2 == 0 ? tune : test).add(s);
    }
  }

  @Test
  void thereAreAtLeastTwoHundredLabelledMaps() {
    assertThat(tune.size() + test.size()).isGreaterThanOrEqualTo(200);
  }

  @Test
  void defaultsAgreeWithHeldOutLabels() {
    double onTune = ThresholdSearch.agreement(tune, Thresholds.DEFAULT);
    double onTest = ThresholdSearch.agreement(test, Thresholds.DEFAULT);
    System.out.printf(Locale.ROOT, "defaults %s%n", Thresholds.DEFAULT);
    System.out.printf(Locale.ROOT, "agreement: tuning half (even ids, n=%d) %.3f; held-out half (odd ids, n=%d) %.3f%n",
        tune.size(), onTune, test.size(), onTest);
    System.out.println("held-out confusion matrix (rows: hand label, columns: classifier):");
    System.out.print(ThresholdSearch.confusion(test, Thresholds.DEFAULT));
    System.out.printf(Locale.ROOT, "held-out agreement without borderline maps: %.3f (n=%d)%n",
        ThresholdSearch.agreement(test.stream().filter(s -> !s.entry().borderline()).toList(), Thresholds.DEFAULT),
        test.stream().filter(s -> !s.entry().borderline()).count());
    List<Double> spread = ThresholdSearch.tied(tune).stream().map(t -> ThresholdSearch.agreement(test, t))
        .sorted().toList();
    System.out.printf(Locale.ROOT, "held-out agreement over the %d threshold sets tied on the tuning half: "
        + "min %.3f, median %.3f, max %.3f%n", spread.size(), spread.get(0), spread.get(spread.size() / 2),
        spread.get(spread.size() - 1));
    assertThat(onTest).isGreaterThanOrEqualTo(HELD_OUT_FLOOR);
  }

  @Test
  void defaultsAreWhatTheSearchOnTheTuningHalfFinds() {
    Thresholds found = ThresholdSearch.best(tune);
    System.out.printf(Locale.ROOT, "search on the tuning half: %s agreement %.3f%n", found,
        ThresholdSearch.agreement(tune, found));
    assertThat(ThresholdSearch.agreement(tune, Thresholds.DEFAULT))
        .isGreaterThanOrEqualTo(ThresholdSearch.agreement(tune, found) - 1e-9);
  }
}
