package io.headscope.analysis.heads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The shipped learned model on maps drawn by hand, whose category anyone can see: it was trained on
 * real maps only, so these check that it generalises to the textbook shapes, not only to its labels.
 */
class LearnedRuleTest {
  static final Head H = new Head(0, 0);
  private final HeadClassifier learned = new HeadClassifier(HeadClassifier.Method.LEARNED);

  private HeadScore score(float[][] map, List<String> tokens) {
    return learned.score(H, map, Maps.ones(tokens.size()), tokens, Maps.segments(tokens));
  }

  /** All weight on [CLS] (0), on "." (12) or on the last [SEP] (13). */
  @ParameterizedTest
  @ValueSource(ints = {0, 12, 13})
  void aPerfectColumnIsVertical(int column) {
    HeadScore s = score(Maps.vertical(14, column), Maps.SENTENCE);
    assertThat(s.category()).isEqualTo(HeadPattern.VERTICAL);
    assertThat(s.confidence()).isGreaterThan(0.9);
  }

  @ParameterizedTest
  @ValueSource(ints = {-1, 0, 1})
  void aShiftedIdentityIsDiagonal(int shift) {
    assertThat(score(Maps.shifted(14, shift), Maps.SENTENCE).category()).isEqualTo(HeadPattern.DIAGONAL);
  }

  @Test
  void halfOnSepHalfOnThePreviousTokenIsVerticalPlusDiagonal() {
    assertThat(score(Maps.verticalDiagonal(14, 13, -1), Maps.SENTENCE).category())
        .isEqualTo(HeadPattern.VERTICAL_DIAGONAL);
  }

  @Test
  void eachSegmentAttendingEvenlyToItselfIsBlock() {
    assertThat(score(Maps.block(Maps.segments(Maps.PAIR)), Maps.PAIR).category()).isEqualTo(HeadPattern.BLOCK);
  }

  @Test
  void randomRowsAreHeterogeneous() {
    for (long seed = 1; seed <= 5; seed++) {
      assertThat(score(Maps.random(14, seed), Maps.SENTENCE).category()).as("seed %d", seed)
          .isEqualTo(HeadPattern.HETEROGENEOUS);
    }
  }

  @Test
  void probabilitiesSumToOneAndTheConfidenceIsTheLargest() {
    HeadClassifier.Analysed a = learned.analyse(H, Maps.random(14, 9), Maps.ones(14),
        HeadClassifier.MapInput.of(Maps.SENTENCE, new long[14]));
    double[] p = LearnedRule.shipped().probabilities(a.features());
    assertThat(java.util.Arrays.stream(p).sum()).isCloseTo(1, within(1e-12));
    assertThat(a.score().confidence()).isCloseTo(java.util.Arrays.stream(p).max().getAsDouble(), within(1e-12));
    assertThat(a.score().features().values()).containsExactly(a.features().values());
  }

  @Test
  void aModelReadingOtherFeaturesIsRefused() {
    LogisticModel other = new LogisticModel(List.of("x"), List.of("vertical", "diagonal", "vertical+diagonal",
        "block", "heterogeneous"), new double[1], new double[] {1}, new double[5][1], new double[5], 0, "t");
    assertThatThrownBy(() -> new LearnedRule(other)).isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("reads features");
  }
}
