package io.headscope.analysis.heads;

import java.util.List;

/**
 * Fits a {@link LogisticModel} by minimising the mean cross-entropy plus {@code l2/2 * ||W||^2} (the
 * biases are not penalised), by Newton's method with a backtracking (Armijo) step: the loss is convex
 * and the problem small (hundreds of maps, five classes, tens of features: a 90 x 90 Hessian), so a
 * dozen exact steps reach the minimum where gradient descent needs thousands, and the result is the
 * same on every machine and run, which a shipped model needs. Features are standardised first (mean 0,
 * unit standard deviation on the training data) so one penalty fits all of them.
 *
 * <p>Items may carry weights (scaled to mean 1): the loss, its derivatives and the standardisation then
 * count item {@code i} {@code w_i} times, so an integer weight is the same as repeating the item. {@link
 * #balanced} gives every class the same total weight, for when each class's recall matters as much as the
 * overall agreement.
 */
public final class LogisticTrainer {
  /** Stops when the gradient's largest entry is below this. */
  static final double TOLERANCE = 1e-9;
  static final int MAX_STEPS = 200;
  /**
   * Added to the Hessian's bias entries: the softmax is unchanged when every bias moves by the same
   * amount, so without it the unpenalised biases leave the Hessian singular along that direction.
   */
  static final double BIAS_RIDGE = 1e-9;

  private LogisticTrainer() {}

  /**
   * @param x {@code [item][feature]}, raw
   * @param y each item's class index
   */
  public static LogisticModel fit(List<String> features, List<String> classes, double[][] x, int[] y, double l2,
      String trainedOn) {
    double[] ones = new double[x.length];
    java.util.Arrays.fill(ones, 1);
    return fit(features, classes, x, y, ones, l2, trainedOn);
  }

  /**
   * @param weights each item's weight (positive; scaled here to mean 1)
   */
  public static LogisticModel fit(List<String> features, List<String> classes, double[][] x, int[] y,
      double[] weights, double l2, String trainedOn) {
    int n = x.length;
    int f = features.size();
    int k = classes.size();
    double total = 0;
    for (double v : weights) {
      if (!(v > 0)) {
        throw new IllegalArgumentException("weights must be positive: " + v);
      }
      total += v;
    }
    double[] w = new double[n];
    for (int i = 0; i < n; i++) {
      w[i] = weights[i] * n / total; // 1 exactly when every weight is equal
    }
    double[] mean = new double[f];
    double[] scale = new double[f];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < f; j++) {
        mean[j] += w[i] * x[i][j] / n;
      }
    }
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < f; j++) {
        scale[j] += w[i] * (x[i][j] - mean[j]) * (x[i][j] - mean[j]) / n;
      }
    }
    for (int j = 0; j < f; j++) {
      // a constant feature on the training data carries nothing: unit scale keeps it harmless
      scale[j] = scale[j] > 1e-24 ? Math.sqrt(scale[j]) : 1;
    }
    double[][] z = new double[n][f];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < f; j++) {
        z[i][j] = (x[i][j] - mean[j]) / scale[j];
      }
    }
    // parameters as one vector: k rows of f weights, then k biases
    double[] theta = new double[k * f + k];
    double[] grad = new double[theta.length];
    double loss = lossAndGradient(z, y, w, k, f, l2, theta, grad);
    for (int it = 0; it < MAX_STEPS && maxAbs(grad) > TOLERANCE; it++) {
      double[] direction = solve(hessian(z, w, k, f, l2, theta), grad);
      if (direction == null || dot(direction, grad) <= 0) {
        direction = grad.clone(); // not a descent direction (numerically): fall back to the gradient
      }
      double slope = dot(direction, grad);
      double step = 1;
      double[] next = new double[theta.length];
      double[] nextGrad = new double[theta.length];
      double nextLoss;
      while (true) {
        for (int p = 0; p < theta.length; p++) {
          next[p] = theta[p] - step * direction[p];
        }
        nextLoss = lossAndGradient(z, y, w, k, f, l2, next, nextGrad);
        if (nextLoss <= loss - 1e-4 * step * slope || step < 1e-12) {
          break;
        }
        step /= 2;
      }
      if (!(nextLoss < loss)) {
        break; // no step lowers the loss any more: at the minimum to rounding
      }
      theta = next;
      grad = nextGrad;
      loss = nextLoss;
    }
    double[][] weightsOut = new double[k][f];
    double[] b = new double[k];
    for (int c = 0; c < k; c++) {
      System.arraycopy(theta, c * f, weightsOut[c], 0, f);
      b[c] = theta[k * f + c];
    }
    return new LogisticModel(features, classes, mean, scale, weightsOut, b, l2, trainedOn);
  }

  /**
   * The objective at {@code theta} and its gradient (written into {@code grad}): mean over items of
   * {@code -log p(y_i | z_i)} plus {@code l2/2} times the squared weights.
   */
  static double lossAndGradient(double[][] z, int[] y, int k, int f, double l2, double[] theta, double[] grad) {
    double[] ones = new double[z.length];
    java.util.Arrays.fill(ones, 1);
    return lossAndGradient(z, y, ones, k, f, l2, theta, grad);
  }

  /** The same with item weights {@code w} (mean 1): the mean of {@code w_i * -log p(y_i | z_i)}. */
  static double lossAndGradient(double[][] z, int[] y, double[] w, int k, int f, double l2, double[] theta,
      double[] grad) {
    int n = z.length;
    java.util.Arrays.fill(grad, 0);
    double loss = 0;
    double[] s = new double[k];
    for (int i = 0; i < n; i++) {
      double max = Double.NEGATIVE_INFINITY;
      for (int c = 0; c < k; c++) {
        double v = theta[k * f + c];
        for (int j = 0; j < f; j++) {
          v += theta[c * f + j] * z[i][j];
        }
        s[c] = v;
        max = Math.max(max, v);
      }
      double sum = 0;
      for (int c = 0; c < k; c++) {
        sum += Math.exp(s[c] - max);
      }
      double logSum = max + Math.log(sum);
      loss += w[i] * (logSum - s[y[i]]) / n;
      for (int c = 0; c < k; c++) {
        double r = w[i] * (Math.exp(s[c] - logSum) - (c == y[i] ? 1 : 0)) / n;
        for (int j = 0; j < f; j++) {
          grad[c * f + j] += r * z[i][j];
        }
        grad[k * f + c] += r;
      }
    }
    for (int p = 0; p < k * f; p++) {
      loss += 0.5 * l2 * theta[p] * theta[p];
      grad[p] += l2 * theta[p];
    }
    return loss;
  }

  /**
   * The objective's Hessian: {@code (1/n) sum_i (diag(p_i) - p_i p_i^T) (x) (z~_i z~_i^T)} with
   * {@code z~ = (z, 1)}, plus {@code l2} on the weights' diagonal; parameters ordered as in
   * {@link #lossAndGradient}.
   */
  static double[][] hessian(double[][] z, double[] weights, int k, int f, double l2, double[] theta) {
    int n = z.length;
    int d = k * f + k;
    double[][] h = new double[d][d];
    double[] p = new double[k];
    double[] zt = new double[f + 1];
    for (int i = 0; i < n; i++) {
      double[] zi = z[i];
      System.arraycopy(zi, 0, zt, 0, f);
      zt[f] = 1;
      double max = Double.NEGATIVE_INFINITY;
      for (int c = 0; c < k; c++) {
        double v = theta[k * f + c];
        for (int j = 0; j < f; j++) {
          v += theta[c * f + j] * zi[j];
        }
        p[c] = v;
        max = Math.max(max, v);
      }
      double sum = 0;
      for (int c = 0; c < k; c++) {
        p[c] = Math.exp(p[c] - max);
        sum += p[c];
      }
      for (int c = 0; c < k; c++) {
        p[c] /= sum;
      }
      for (int c = 0; c < k; c++) {
        for (int e = 0; e < k; e++) {
          double w = weights[i] * ((c == e ? p[c] : 0) - p[c] * p[e]) / n;
          if (w == 0) {
            continue;
          }
          for (int a = 0; a <= f; a++) {
            int row = a < f ? c * f + a : k * f + c;
            for (int b = 0; b <= f; b++) {
              int col = b < f ? e * f + b : k * f + e;
              h[row][col] += w * zt[a] * zt[b];
            }
          }
        }
      }
    }
    for (int q = 0; q < k * f; q++) {
      h[q][q] += l2;
    }
    for (int q = k * f; q < d; q++) {
      h[q][q] += BIAS_RIDGE;
    }
    return h;
  }

  /**
   * Weights that give every class present the same total: {@code n / (classes present * count of y_i's
   * class)}, so a class of 50 maps counts as much as one of 600.
   */
  public static double[] balanced(int[] y, int k) {
    int[] count = new int[k];
    for (int c : y) {
      count[c]++;
    }
    int present = 0;
    for (int c : count) {
      present += c > 0 ? 1 : 0;
    }
    double[] w = new double[y.length];
    for (int i = 0; i < y.length; i++) {
      w[i] = y.length / ((double) present * count[y[i]]);
    }
    return w;
  }

  /** Solves {@code h x = g} by Cholesky; null when {@code h} is not positive definite to rounding. */
  static double[] solve(double[][] h, double[] g) {
    int d = g.length;
    double[][] l = new double[d][d];
    for (int i = 0; i < d; i++) {
      for (int j = 0; j <= i; j++) {
        double s = h[i][j];
        for (int m = 0; m < j; m++) {
          s -= l[i][m] * l[j][m];
        }
        if (i == j) {
          if (!(s > 0)) {
            return null;
          }
          l[i][i] = Math.sqrt(s);
        } else {
          l[i][j] = s / l[j][j];
        }
      }
    }
    double[] y = new double[d];
    for (int i = 0; i < d; i++) {
      double s = g[i];
      for (int m = 0; m < i; m++) {
        s -= l[i][m] * y[m];
      }
      y[i] = s / l[i][i];
    }
    double[] x = new double[d];
    for (int i = d - 1; i >= 0; i--) {
      double s = y[i];
      for (int m = i + 1; m < d; m++) {
        s -= l[m][i] * x[m];
      }
      x[i] = s / l[i][i];
    }
    return x;
  }

  private static double dot(double[] a, double[] b) {
    double s = 0;
    for (int i = 0; i < a.length; i++) {
      s += a[i] * b[i];
    }
    return s;
  }

  private static double maxAbs(double[] a) {
    double m = 0;
    for (double v : a) {
      m = Math.max(m, Math.abs(v));
    }
    return m;
  }
}
