package io.headscope.analysis.ablation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The one-sided exact sign test against binomial tails counted by hand. */
class SignTestTest {
  @ParameterizedTest
  @CsvSource({
      // improved, worsened, P(X >= improved) for X ~ Bin(n, 1/2), by hand
      "4, 1, 0.1875",         // (C(5,4) + C(5,5)) / 32 = 6/32
      "8, 2, 0.0546875",      // (45 + 10 + 1) / 1024
      "0, 3, 1.0",            // every outcome has X >= 0
      "3, 0, 0.125",          // 1/8
      "1, 1, 0.75",           // (2 + 1) / 4
      "0, 0, 1.0"})           // no head changed the score
  void pValueIsTheUpperBinomialTail(int up, int down, double p) {
    assertThat(SignTest.of(up, down).pValue()).isCloseTo(p, within(1e-15));
  }

  @Test
  void largeCountsStayExact() {
    // 144 heads all improving: 2^-144
    assertThat(SignTest.of(144, 0).pValue()).isCloseTo(Math.pow(2, -144), within(1e-60));
    // symmetric: P(X >= 72) for n = 144 is 1/2 + P(X = 72)/2
    double c = 1;
    for (int j = 1; j <= 72; j++) {
      c = c * (144 - j + 1) / j; // C(144, 72) in double
    }
    assertThat(SignTest.of(72, 72).pValue()).isCloseTo(0.5 + c / Math.pow(2, 144) / 2, within(1e-12));
  }

  @Test
  void deltasCountTheirSignsAndLeaveZerosOut() {
    SignTest t = SignTest.ofDeltas(new double[][] {{0.1, 0, -0.2}, {0.3, 0.0, 0.05}});
    assertThat(t.improved()).isEqualTo(3);
    assertThat(t.worsened()).isEqualTo(1);
    assertThat(t.pValue()).isCloseTo(5.0 / 16, within(1e-15));
  }
}
