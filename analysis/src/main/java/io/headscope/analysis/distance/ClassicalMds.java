package io.headscope.analysis.distance;

import io.headscope.model.core.HeadScopeException;
import java.util.Arrays;
import java.util.Comparator;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.factory.DecompositionFactory_DDRM;
import org.ejml.interfaces.decomposition.EigenDecomposition_F64;

/**
 * Classical (Torgerson) multidimensional scaling: points whose Euclidean distances best match a
 * dissimilarity matrix D. {@code B = -1/2 J D^2 J} with {@code J = I - 11^T / n} (D squared element
 * by element); the coordinates on axis k are the k-th eigenvector of B times {@code sqrt(lambda_k)},
 * eigenvalues largest first. When D is Euclidean (as the Jensen-Shannon distance is), B is positive
 * semi-definite and the first axes are its best low-rank fit.
 *
 * <p>The eigen-decomposition is EJML's symmetric QR algorithm. An eigenvector's sign is arbitrary;
 * each axis is turned so that its largest coordinate (in absolute value) is positive, so the same
 * distances always give the same picture.
 */
public final class ClassicalMds {
  private ClassicalMds() {}

  /**
   * @param d symmetric dissimilarities with a zero diagonal
   * @param dims how many axes (at most the number of items)
   */
  public static MdsMap embed(double[][] d, int dims) {
    int n = d.length;
    if (dims < 1 || dims > n) {
      throw new IllegalArgumentException(dims + " axes for " + n + " items");
    }
    DMatrixRMaj b = doubleCentredSquares(d);
    EigenDecomposition_F64<DMatrixRMaj> eig = DecompositionFactory_DDRM.eig(n, true, true);
    if (!eig.decompose(b)) {
      throw new HeadScopeException("The eigen-decomposition of the " + n + " x " + n + " head distances failed.");
    }
    Integer[] order = new Integer[n];
    double[] values = new double[n];
    double positive = 0;
    for (int i = 0; i < n; i++) {
      order[i] = i;
      values[i] = eig.getEigenvalue(i).getReal();
      positive += Math.max(0, values[i]);
    }
    Arrays.sort(order, Comparator.comparingDouble((Integer i) -> values[i]).reversed());
    double[][] points = new double[n][dims];
    double[] top = new double[dims];
    double carried = 0;
    for (int axis = 0; axis < dims; axis++) {
      int i = order[axis];
      top[axis] = values[i];
      carried += Math.max(0, values[i]);
      // a negative eigenvalue (D not Euclidean) gives no real axis: its points stay at 0
      double scale = Math.sqrt(Math.max(0, values[i]));
      DMatrixRMaj v = eig.getEigenVector(i);
      int largest = 0;
      for (int p = 0; p < n; p++) {
        if (Math.abs(v.get(p, 0)) > Math.abs(v.get(largest, 0))) {
          largest = p;
        }
      }
      double sign = v.get(largest, 0) < 0 ? -1 : 1;
      for (int p = 0; p < n; p++) {
        points[p][axis] = sign * scale * v.get(p, 0);
      }
    }
    return new MdsMap(points, top, positive > 0 ? carried / positive : 0);
  }

  /** {@code -1/2 J D^2 J}: squared dissimilarities with row, column and grand means removed. */
  static DMatrixRMaj doubleCentredSquares(double[][] d) {
    int n = d.length;
    double[][] sq = new double[n][n];
    double[] rowMean = new double[n];
    double grand = 0;
    for (int i = 0; i < n; i++) {
      if (d[i].length != n) {
        throw new IllegalArgumentException("row " + i + " has " + d[i].length + " columns, not " + n);
      }
      for (int j = 0; j < n; j++) {
        sq[i][j] = d[i][j] * d[i][j];
        rowMean[i] += sq[i][j] / n;
      }
      grand += rowMean[i] / n;
    }
    DMatrixRMaj b = new DMatrixRMaj(n, n);
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        // D is symmetric, so a column's mean is the row's mean of the same index
        b.set(i, j, -0.5 * (sq[i][j] - rowMean[i] - rowMean[j] + grand));
      }
    }
    return b;
  }
}
