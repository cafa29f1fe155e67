package io.headscope.app.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.analysis.heads.HeadPattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The category colours stay apart for readers with colour-vision deficiencies: each pair differs by
 * at least 15 CIE76 ΔE under Machado, Oliveira and Fernandes' (2009) full-severity simulations of
 * protanopia, deuteranopia and tritanopia (the Tableau hues before differed by 4.6 under protanopia),
 * and every category stands out from the heatmap's darkest blue.
 */
class CategoryColorsTest {
  private static final double[][][] SIMULATIONS = {
      {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
      {{0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216}, {-0.003882, -0.048116, 1.051998}},
      {{0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}},
      {{1.255528, -0.076749, -0.178779}, {-0.078411, 0.930809, 0.147602}, {0.004733, 0.691367, 0.303900}}};

  @ParameterizedTest(name = "simulation {0} (0 normal, 1 protanopia, 2 deuteranopia, 3 tritanopia)")
  @ValueSource(ints = {0, 1, 2, 3})
  void everyPairOfCategoriesStaysApart(int simulation) {
    HeadPattern[] ps = HeadPattern.values();
    for (int i = 0; i < ps.length; i++) {
      for (int j = i + 1; j < ps.length; j++) {
        double d = distance(lab(CategoryColors.rgb(ps[i]), simulation), lab(CategoryColors.rgb(ps[j]), simulation));
        assertThat(d).as("%s vs %s", ps[i], ps[j]).isGreaterThanOrEqualTo(15);
      }
      double navy = distance(lab(CategoryColors.rgb(ps[i]), simulation), lab(Palette.argb(1, 1) & 0xFFFFFF, simulation));
      assertThat(navy).as("%s vs the heatmap's darkest blue", ps[i]).isGreaterThanOrEqualTo(30);
    }
  }

  @Test
  void theSimulationOfGreyIsGrey() {
    double[] g = lab(0x808080, 2);
    assertThat(Math.abs(g[1]) + Math.abs(g[2])).isLessThan(1.0);
  }

  private static double linear(int c) {
    double v = c / 255.0;
    return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
  }

  /** CIE L*a*b* (D65) of an sRGB colour as a reader with the given simulation sees it. */
  private static double[] lab(int rgb, int simulation) {
    double[] in = {linear((rgb >> 16) & 0xFF), linear((rgb >> 8) & 0xFF), linear(rgb & 0xFF)};
    double[] c = new double[3];
    for (int i = 0; i < 3; i++) {
      double s = 0;
      for (int j = 0; j < 3; j++) {
        s += SIMULATIONS[simulation][i][j] * in[j];
      }
      c[i] = Math.max(0, Math.min(1, s));
    }
    double x = (0.4124 * c[0] + 0.3576 * c[1] + 0.1805 * c[2]) / 0.95047;
    double y = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
    double z = (0.0193 * c[0] + 0.1192 * c[1] + 0.9505 * c[2]) / 1.08883;
    return new double[] {116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
  }

  private static double f(double t) {
    return t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16.0 / 116;
  }

  private static double distance(double[] a, double[] b) {
    return Math.sqrt(Math.pow(a[0] - b[0], 2) + Math.pow(a[1] - b[1], 2) + Math.pow(a[2] - b[2], 2));
  }
}
