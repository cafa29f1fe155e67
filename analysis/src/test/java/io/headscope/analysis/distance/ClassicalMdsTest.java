package io.headscope.analysis.distance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** Classical MDS gives back a configuration from its distances, up to rotation, reflection and shift. */
class ClassicalMdsTest {
  /** Five points placed by hand in the plane. */
  private static final double[][] PLANE = {{0, 0}, {3, 0}, {0, 4}, {-2, 1}, {1, -3}};

  private static double[][] distances(double[][] pts) {
    int n = pts.length;
    double[][] d = new double[n][n];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        double s = 0;
        for (int c = 0; c < pts[i].length; c++) {
          s += (pts[i][c] - pts[j][c]) * (pts[i][c] - pts[j][c]);
        }
        d[i][j] = Math.sqrt(s);
      }
    }
    return d;
  }

  @Test
  void aPlanarConfigurationComesBackWithItsDistances() {
    double[][] d = distances(PLANE);
    MdsMap map = ClassicalMds.embed(d, 2);
    double[][] back = distances(map.points());
    for (int i = 0; i < d.length; i++) {
      for (int j = 0; j < d.length; j++) {
        assertThat(back[i][j]).as("distance %d-%d", i, j).isCloseTo(d[i][j], within(1e-9));
      }
    }
    assertThat(map.explained()).isCloseTo(1.0, within(1e-9));
  }

  @Test
  void theEigenvaluesAreTheScatterOfTheCentredPoints() {
    // centre: mean x = (0+3+0-2+1)/5 = 0.4, mean y = (0+0+4+1-3)/5 = 0.4
    // centred x: -0.4, 2.6, -0.4, -2.4, 0.6; centred y: -0.4, -0.4, 3.6, 0.6, -3.4
    // Sxx = 0.16+6.76+0.16+5.76+0.36 = 13.2
    // Syy = 0.16+0.16+12.96+0.36+11.56 = 25.2
    // Sxy = 0.16-1.04-1.44-1.44-2.04 = -5.8
    // B = X X^T has the eigenvalues of the scatter matrix [[13.2,-5.8],[-5.8,25.2]]:
    // (13.2+25.2)/2 +- sqrt(((25.2-13.2)/2)^2 + 5.8^2) = 19.2 +- sqrt(36 + 33.64) = 19.2 +- 8.345058...
    double root = Math.sqrt(69.64);
    MdsMap map = ClassicalMds.embed(distances(PLANE), 2);
    assertThat(map.eigenvalues()[0]).isCloseTo(19.2 + root, within(1e-9));
    assertThat(map.eigenvalues()[1]).isCloseTo(19.2 - root, within(1e-9));
    // the points are centred on the origin
    double sx = 0;
    double sy = 0;
    for (double[] p : map.points()) {
      sx += p[0];
      sy += p[1];
    }
    assertThat(sx).isCloseTo(0, within(1e-9));
    assertThat(sy).isCloseTo(0, within(1e-9));
  }

  @Test
  void aThreeDimensionalConfigurationKeepsOnlyPartInTwoAxes() {
    // a regular tetrahedron: every distance equal, so no plane holds it; three equal eigenvalues
    double[][] d = new double[4][4];
    for (int i = 0; i < 4; i++) {
      for (int j = 0; j < 4; j++) {
        d[i][j] = i == j ? 0 : 1;
      }
    }
    MdsMap map = ClassicalMds.embed(d, 2);
    assertThat(map.explained()).isCloseTo(2.0 / 3, within(1e-9));
    // B = -1/2 J D^2 J = 1/2 J for unit distances: eigenvalue 1/2 three times
    assertThat(map.eigenvalues()[0]).isCloseTo(0.5, within(1e-9));
  }

  @Test
  void theSameDistancesGiveTheSamePicture() {
    double[][] d = distances(PLANE);
    double[][] a = ClassicalMds.embed(d, 2).points();
    double[][] b = ClassicalMds.embed(d, 2).points();
    assertThat(a).isDeepEqualTo(b);
  }
}
