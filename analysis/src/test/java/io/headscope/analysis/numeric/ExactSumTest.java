package io.headscope.analysis.numeric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ExactSumTest {
  /** Terms whose float sum depends on the order: mixed signs, magnitudes from 1e-300 to 1e300, subnormals. */
  private static List<Double> awkwardTerms(long seed, int n) {
    Random r = new Random(seed);
    List<Double> xs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      double x = switch (i % 5) {
        case 0 -> r.nextDouble();
        case 1 -> -r.nextDouble() * 1e-9;
        case 2 -> Math.scalb(r.nextDouble() - 0.5, r.nextInt(2000) - 1000);
        case 3 -> Double.MIN_VALUE * r.nextInt(1000);
        default -> r.nextGaussian() * 1e6;
      };
      xs.add(x);
    }
    return xs;
  }

  private static double exactlyRounded(List<Double> xs) {
    BigDecimal s = BigDecimal.ZERO;
    for (double x : xs) {
      s = s.add(new BigDecimal(x));
    }
    return s.doubleValue(); // BigDecimal -> double rounds correctly (to nearest, ties to even)
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5})
  void theSumIsTheExactSumRoundedOnceWhateverTheOrder(long seed) {
    List<Double> xs = awkwardTerms(seed, 2000);
    double expected = exactlyRounded(xs);
    for (int shuffle = 0; shuffle < 5; shuffle++) {
      Collections.shuffle(xs, new Random(seed * 31 + shuffle));
      ExactSum s = new ExactSum();
      xs.forEach(s::add);
      assertThat(s.value()).isEqualTo(expected);
    }
  }

  @Test
  void shardsAddedUpGiveTheBitsOfOneSum() {
    List<Double> xs = awkwardTerms(9, 3000);
    ExactSum one = new ExactSum();
    xs.forEach(one::add);
    ExactSum merged = new ExactSum();
    for (int k = 0; k < 3; k++) {
      ExactSum shard = new ExactSum();
      for (int i = k; i < xs.size(); i += 3) {
        shard.add(xs.get(i));
      }
      merged.add(ExactSum.parse(shard.toString())); // through the text a partial file holds
    }
    assertThat(merged.toString()).isEqualTo(one.toString());
    assertThat(Double.doubleToRawLongBits(merged.value())).isEqualTo(Double.doubleToRawLongBits(one.value()));
  }

  @Test
  void cancellationLosesNothing() {
    ExactSum s = new ExactSum();
    s.add(1e300);
    s.add(1.0);
    s.add(-1e300);
    assertThat(s.value()).isEqualTo(1.0);
    ExactSum t = new ExactSum();
    t.add(0.1);
    t.add(0.2);
    t.add(-0.3);
    assertThat(t.value()).isEqualTo(new BigDecimal(0.1).add(new BigDecimal(0.2)).subtract(new BigDecimal(0.3))
        .doubleValue());
  }

  @Test
  void aSingleTermIsItself() {
    for (double x : new double[] {0.0, 1.0, -2.5, Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE, 0.1, 1e-310}) {
      ExactSum s = new ExactSum();
      s.add(x);
      assertThat(s.value()).isEqualTo(x);
      assertThat(ExactSum.parse(s.toString()).value()).isEqualTo(x);
    }
  }

  @Test
  void manyTermsCarryWithoutOverflow() {
    ExactSum s = new ExactSum();
    for (int i = 0; i < 600_000_000 / 1000; i++) {
      s.add(Double.MAX_VALUE / 4); // limbs near the top, carried as they fill
    }
    assertThat(s.toString()).isNotEmpty();
    ExactSum ones = new ExactSum();
    for (int i = 0; i < 1_000_000; i++) {
      ones.add(0.1);
    }
    assertThat(ones.value()).isEqualTo(new BigDecimal(0.1).multiply(BigDecimal.valueOf(1_000_000)).doubleValue());
  }

  @Test
  void nanAndInfinityWinAsInOrdinaryAddition() {
    ExactSum s = new ExactSum();
    s.add(1);
    s.add(Double.POSITIVE_INFINITY);
    assertThat(s.value()).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(ExactSum.parse(s.toString()).value()).isEqualTo(Double.POSITIVE_INFINITY);
    s.add(Double.NaN);
    assertThat(s.value()).isNaN();
  }

  @Test
  void malformedTextIsRefused() {
    assertThatThrownBy(() -> ExactSum.parse("1.5")).isInstanceOf(NumberFormatException.class);
    assertThatThrownBy(() -> ExactSum.parse("1p99999")).isInstanceOf(NumberFormatException.class);
    assertThatThrownBy(() -> ExactSum.parse("zzp1")).isInstanceOf(NumberFormatException.class);
  }
}
