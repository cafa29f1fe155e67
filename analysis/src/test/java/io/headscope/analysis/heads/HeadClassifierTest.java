package io.headscope.analysis.heads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.core.Head;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class HeadClassifierTest {
  private static final Head H = new Head(0, 0);
  /** The rule: these maps check the scores and the thresholds by hand ({@link LearnedRuleTest} the model). */
  private final HeadClassifier classifier = new HeadClassifier(HeadClassifier.Method.RULE);

  private HeadScore score(float[][] map, List<String> tokens) {
    return classifier.score(H, map, Maps.ones(tokens.size()), tokens, Maps.segments(tokens));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {"13|[SEP]", "0|[CLS]", "12|.", "7|,"})
  void aPerfectVerticalMapIsVerticalWithScoreOne(int column, String token) {
    HeadScore s = score(Maps.vertical(14, column), Maps.SENTENCE);
    assertThat(s.category()).isEqualTo(HeadPattern.VERTICAL);
    assertThat(s.vertical()).isCloseTo(1.0, within(1e-9));
    // a middle column crosses the band in 3 rows: a hair above a uniform map's band
    assertThat(s.diagonal()).isLessThan(0.05);
    assertThat(s.heterogeneous()).isCloseTo(0.0, within(1e-9));
    assertThat(s.topColumns()).containsExactly(token);
    assertThat(s.confidence()).isCloseTo(1.0, within(1e-9));
  }

  @ParameterizedTest
  @CsvSource({"0, 0", "-1, -1", "1, 1"})
  void shiftedIdentityIsDiagonalWithItsOffset(int shift, int expectedOffset) {
    HeadScore s = score(Maps.shifted(14, shift), Maps.SENTENCE);
    assertThat(s.category()).isEqualTo(HeadPattern.DIAGONAL);
    // the band outside the top column: every row's weight but the column's, 1 - 1/14 or 1 - 2/14
    assertThat(s.diagonal()).isBetween(1 - 2.0 / 14 - 1e-6, 1 - 1.0 / 14 + 1e-6);
    assertThat(s.dominantOffset()).isEqualTo(expectedOffset);
    assertThat(s.vertical()).isLessThan(0.2);
  }

  @Test
  void identityStatisticsAreAllSelf() {
    HeadStats st = score(Maps.shifted(14, 0), Maps.SENTENCE).stats();
    assertThat(st.self()).isCloseTo(1.0, within(1e-9));
    assertThat(st.previous()).isZero();
    assertThat(st.next()).isZero();
  }

  @Test
  void previousTokenShareCountsOnlyRowsThatHaveAPreviousToken() {
    HeadStats st = score(Maps.shifted(14, -1), Maps.SENTENCE).stats();
    assertThat(st.previous()).isCloseTo(1.0, within(1e-9)); // 13 of 13 rows with a previous token
    assertThat(st.self()).isCloseTo(1.0 / 14, within(1e-9)); // only row 0 attends to itself
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 13})
  void halfColumnHalfPreviousIsVerticalPlusDiagonal(int column) {
    HeadScore s = score(Maps.verticalDiagonal(14, column, -1), Maps.SENTENCE);
    assertThat(s.category()).isEqualTo(HeadPattern.VERTICAL_DIAGONAL);
    assertThat(s.vertical()).isBetween(0.4, 0.6);
    assertThat(s.diagonal()).isBetween(0.4, 0.6);
    assertThat(s.dominantOffset()).isEqualTo(-1);
  }

  @Test
  void attendingWithinOwnSegmentIsBlock() {
    long[] seg = Maps.segments(Maps.PAIR);
    HeadScore s = score(Maps.block(seg), Maps.PAIR);
    assertThat(s.category()).isEqualTo(HeadPattern.BLOCK);
    assertThat(s.block()).isCloseTo(1.0, within(1e-6));
    assertThat(s.vertical()).isLessThan(0.2);
  }

  @Test
  void aBlockMapHasNoDiagonalScore() {
    assertThat(score(Maps.block(Maps.segments(Maps.PAIR)), Maps.PAIR).diagonal()).isCloseTo(0.0, within(1e-6));
  }

  @Test
  void aLocalHeadInAPairIsNotABlock() {
    // each row spread over i-2..i+2: nearly all within its own segment, but only because it is near
    int n = Maps.PAIR.size();
    float[][] a = new float[n][n];
    for (int i = 0; i < n; i++) {
      int lo = Math.max(0, i - 2);
      int hi = Math.min(n - 1, i + 2);
      for (int j = lo; j <= hi; j++) {
        a[i][j] = 1f / (hi - lo + 1);
      }
    }
    HeadScore s = score(a, Maps.PAIR);
    assertThat(s.block()).isLessThan(0.2);
    assertThat(s.category()).isNotEqualTo(HeadPattern.BLOCK);
  }

  @Test
  void aColumnThatOtherCellsRivalHasLowFocus() {
    // every row: half on [SEP], half on one other word per row (as strong as the column everywhere), so the
    // column's mass passes the vertical threshold ((0.5 - 1/14) / (1 - 1/14) = 0.46) but one of each row's two
    // salient cells is off it
    int n = Maps.SENTENCE.size();
    float[][] a = new float[n][n];
    for (int i = 0; i < n; i++) {
      a[i][13] = 0.5f;
      a[i][(i + 5) % 13] += 0.5f;
    }
    HeadScore s = score(a, Maps.SENTENCE);
    assertThat(s.vertical()).isGreaterThan(Thresholds.DEFAULT.vertical());
    assertThat(s.verticalFocus()).isCloseTo(0.5, within(0.01));
    float[][] clean = Maps.vertical(n, 13);
    assertThat(score(clean, Maps.SENTENCE).verticalFocus()).isCloseTo(1.0, within(1e-9));
  }

  @Test
  void aFaintBandUnderADominantColumnIsNotDiagonal() {
    // 0.95 on [SEP], 0.05 on the previous token: the band is there but nobody sees it
    int n = Maps.SENTENCE.size();
    float[][] a = new float[n][n];
    for (int i = 0; i < n; i++) {
      a[i][13] += 0.95f;
      a[i][Math.max(0, i - 1)] += 0.05f;
    }
    HeadScore s = score(a, Maps.SENTENCE);
    assertThat(s.diagonal()).isLessThan(0.06);
    assertThat(s.category()).isEqualTo(HeadPattern.VERTICAL);
  }

  @Test
  void aSingleSentenceHasNoBlockScore() {
    assertThat(score(Maps.uniform(14), Maps.SENTENCE).block()).isZero();
    assertThat(score(Maps.block(Maps.segments(Maps.SENTENCE)), Maps.SENTENCE).block()).isZero();
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5})
  void randomMapsAreHeterogeneous(long seed) {
    for (String which : List.of("sentence", "pair")) {
      HeadScore s = score(Maps.random(14, seed), Maps.tokens(which));
      assertThat(s.category()).as(which).isEqualTo(HeadPattern.HETEROGENEOUS);
      assertThat(s.heterogeneous()).as(which).isGreaterThan(0.7);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {3, 5, 6, 14, 60})
  void aUniformMapScoresZeroOnEveryPatternWhateverItsLength(int n) {
    List<String> tokens = new java.util.ArrayList<>();
    for (int i = 0; i < n; i++) {
      tokens.add(i == 0 ? "[CLS]" : i == n - 1 ? "[SEP]" : "w" + i);
    }
    HeadScore s = classifier.score(H, Maps.uniform(n), Maps.ones(n), tokens, new long[n]);
    assertThat(s.vertical()).isCloseTo(0.0, within(1e-6));
    assertThat(s.diagonal()).isCloseTo(0.0, within(1e-6));
    assertThat(s.category()).isEqualTo(HeadPattern.HETEROGENEOUS);
    // Clark's entropy of a uniform row is ln n (smoothing leaves a uniform row unchanged)
    assertThat(s.stats().entropy()).isCloseTo(Math.log(n), within(1e-5));
  }

  @Test
  void tokenTypeSharesFollowTheKeyTokens() {
    // every row: 0.5 on [SEP], 0.25 on [CLS], 0.25 on "."
    int n = Maps.SENTENCE.size();
    float[][] a = new float[n][n];
    for (float[] row : a) {
      row[13] = 0.5f;
      row[0] = 0.25f;
      row[12] = 0.25f;
    }
    HeadStats st = score(a, Maps.SENTENCE).stats();
    assertThat(st.sep()).isCloseTo(0.5, within(1e-6));
    assertThat(st.cls()).isCloseTo(0.25, within(1e-6));
    assertThat(st.punct()).isCloseTo(0.25, within(1e-6));
    assertThat(st.other()).isCloseTo(0.0, within(1e-6));
  }

  @Test
  void normWeightingShrinksTokensWithSmallValueVectors() {
    // half the weight on [SEP] whose value vector is 9 times shorter than the word's: N share = 0.1
    int n = Maps.SENTENCE.size();
    float[][] a = new float[n][n];
    for (float[] row : a) {
      row[13] = 0.5f;
      row[2] = 0.5f;
    }
    float[] norms = Maps.ones(n);
    norms[13] = 1f / 9;
    HeadStats st = classifier.score(H, a, norms, Maps.SENTENCE, Maps.segments(Maps.SENTENCE)).stats();
    assertThat(st.sep()).isCloseTo(0.5, within(1e-6));
    assertThat(st.normSep()).isCloseTo(0.1, within(1e-6));
    assertThat(st.normOther()).isCloseTo(0.9, within(1e-6));
    assertThat(st.meanValueNorm()).isCloseTo((13 + 1.0 / 9) / 14, within(1e-6));
  }

  @Test
  void entropyOfAOneHotRowFollowsClarksSmoothing() {
    int n = 14;
    double p = 0.9999 + 1e-4 / n;
    double q = 1e-4 / n;
    double expected = -(p * Math.log(p) + (n - 1) * q * Math.log(q));
    assertThat(score(Maps.vertical(n, 13), Maps.SENTENCE).stats().entropy()).isCloseTo(expected, within(1e-6));
  }

  @Test
  void secondColumnCountsOnlyWhenItCarriesEnough() {
    int n = 14;
    float[][] a = new float[n][n];
    for (float[] row : a) {
      row[13] = 0.55f;
      row[0] = 0.45f;
    }
    HeadScore s = score(a, Maps.SENTENCE);
    assertThat(s.topColumns()).containsExactly("[SEP]", "[CLS]");
    assertThat(s.vertical()).isCloseTo(1.0, within(1e-6));
  }

  @ParameterizedTest
  @CsvSource({
    "0.9, 0.9, 0.0, 0.0, VERTICAL",
    "0.9, 0.1, 0.0, 0.0, HETEROGENEOUS",
    "0.0, 0.0, 0.9, 0.0, DIAGONAL",
    "0.45, 0.1, 0.45, 0.0, VERTICAL_DIAGONAL",
    "0.1, 0.1, 0.1, 0.9, BLOCK",
    "0.2, 0.9, 0.2, 0.2, HETEROGENEOUS",
    "0.6, 0.6, 0.6, 0.6, VERTICAL_DIAGONAL"
  })
  void theRuleTakesTheFirstCategoryWhoseThresholdsAreMet(double v, double f, double d, double b,
      HeadPattern expected) {
    Thresholds.Decision decision = new Thresholds(0.1, 0.5, 0.5, 0.5, 0.3, 0.3, 0.5).decide(v, f, d, b);
    assertThat(decision.category()).isEqualTo(expected);
    assertThat(decision.confidence()).isBetween(0.5, 1.0);
  }

  @Test
  void confidenceIsOneHalfOnABoundary() {
    Thresholds t = Thresholds.DEFAULT;
    assertThat(t.decide(t.vertical(), 1, 0, 0).confidence()).isCloseTo(0.5, within(1e-9));
    assertThat(t.decide(1, t.verticalFocus(), 0, 0).confidence()).isCloseTo(0.5, within(1e-9));
    assertThat(t.decide(0, 0, 0, 0).confidence()).isCloseTo(1.0, within(1e-9));
  }

  @Test
  void labelsAreThePapersNames() {
    assertThat(HeadPattern.VERTICAL_DIAGONAL.label()).isEqualTo("vertical+diagonal");
    for (HeadPattern p : HeadPattern.values()) {
      assertThat(HeadPattern.parse(p.label())).isEqualTo(p);
    }
  }
}
