package io.headscope.analysis.linguistics.probes;

import java.util.Arrays;
import java.util.List;

/**
 * The head-selection probe's training objective: the mean negative log-likelihood of the gold heads
 * plus {@code l2 / 2 * |theta|^2}, for weights {@code theta} on features divided by {@code scale}
 * (see {@link HeadSelectionProbe}). Scores are kept flat, word by word and candidate by candidate,
 * so that the line search can interpolate them ({@link LineMemo}).
 */
final class HeadSelectionLoss implements Minimizer.Objective {
  /** Candidate pairs the preconditioner is estimated from at most (whole words, in order): an estimate is enough. */
  static final int CURVATURE_PAIRS = 5000;

  private final List<PairAttention> data;
  private final double[] scale;
  private final double l2;
  /** Where each sentence's scores start: word {@code i}, candidate {@code j} at {@code offset + (i - 1)(n + 1) + j}. */
  private final int[] offset;
  private final int size;
  private final long words;
  private final LineMemo memo = new LineMemo();

  HeadSelectionLoss(List<PairAttention> data, double[] scale, double l2) {
    this.data = data;
    this.scale = scale;
    this.l2 = l2;
    offset = new int[data.size()];
    int at = 0;
    long w = 0;
    for (int s = 0; s < data.size(); s++) {
      offset[s] = at;
      int n = data.get(s).words();
      at += n * (n + 1);
      w += n;
    }
    size = at;
    words = w;
  }

  @Override
  public double valueAndGradient(double[] theta, double[] gradient) {
    int dim = theta.length;
    int k = dim / 2;
    double[] score = memo.scores(theta, gradient != null, this::scores);
    double[] g = gradient == null ? null : new double[dim]; // d loss / d raw weight
    double loss = 0;
    for (int s = 0; s < data.size(); s++) {
      PairAttention p = data.get(s);
      int n = p.words();
      for (int i = 1; i <= n; i++) {
        int row = offset[s] + (i - 1) * (n + 1);
        double max = Double.NEGATIVE_INFINITY;
        for (int j = 0; j <= n; j++) {
          if (j != i) {
            max = Math.max(max, score[row + j]);
          }
        }
        double z = 0;
        for (int j = 0; j <= n; j++) {
          if (j != i) {
            z += Math.exp(score[row + j] - max);
          }
        }
        int gold = p.sentence().word(i).head();
        loss += max + Math.log(z) - score[row + gold];
        if (g != null) {
          for (int j = 0; j <= n; j++) {
            if (j == i) {
              continue;
            }
            double coef = Math.exp(score[row + j] - max) / z - (j == gold ? 1 : 0); // p_ij - [j is gold]
            float[] first = p.from(i, j);
            float[] second = p.from(j, i);
            for (int f = 0; f < k; f++) {
              g[f] += coef * first[f];
              g[k + f] += coef * second[f];
            }
          }
        }
      }
    }
    double penalty = 0;
    for (int f = 0; f < dim; f++) {
      penalty += theta[f] * theta[f];
      if (g != null) {
        gradient[f] = g[f] / words / scale[f] + l2 * theta[f];
      }
    }
    return loss / words + 0.5 * l2 * penalty;
  }

  /** Every candidate's score {@code s_ij} (0 in the unused slot {@code j = i}). */
  private double[] scores(double[] theta) {
    double[] raw = new double[theta.length];
    for (int f = 0; f < theta.length; f++) {
      raw[f] = theta[f] / scale[f];
    }
    Weights w = new Weights(raw, 0);
    double[] out = new double[size];
    for (int s = 0; s < data.size(); s++) {
      PairAttention p = data.get(s);
      int n = p.words();
      for (int i = 1; i <= n; i++) {
        for (int j = 0; j <= n; j++) {
          if (j != i) {
            out[offset[s] + (i - 1) * (n + 1) + j] = w.score(p.from(i, j), p.from(j, i));
          }
        }
      }
    }
    return out;
  }

  /** Each feature's standard deviation over every candidate pair of the sentences (1 where it is 0). */
  static double[] scales(List<PairAttention> data) {
    int k = data.get(0).heads();
    double[] sum = new double[2 * k];
    double[] sq = new double[2 * k];
    long count = 0;
    for (PairAttention s : data) {
      for (int i = 1; i <= s.words(); i++) {
        for (int j = 0; j <= s.words(); j++) {
          if (j == i) {
            continue;
          }
          count++;
          float[] first = s.from(i, j);
          float[] second = s.from(j, i);
          for (int f = 0; f < k; f++) {
            sum[f] += first[f];
            sq[f] += (double) first[f] * first[f];
            sum[k + f] += second[f];
            sq[k + f] += (double) second[f] * second[f];
          }
        }
      }
    }
    return Standardise.deviations(sum, sq, count);
  }

  /**
   * The objective's Hessian at zero weights (every candidate equally likely): the mean over words of
   * the covariance of their candidates' standardised features, plus {@code l2} on the diagonal;
   * estimated from the first words up to {@link #CURVATURE_PAIRS} candidate pairs. Preconditions the
   * optimiser.
   */
  static double[][] curvature(List<PairAttention> data, double[] scale, double l2) {
    int dim = scale.length;
    int k = dim / 2;
    double[][] h = new double[dim][dim];
    double[] z = new double[dim];
    double[] mean = new double[dim];
    long pairs = 0;
    long words = 0;
    for (PairAttention s : data) {
      for (int i = 1; i <= s.words() && pairs < CURVATURE_PAIRS; i++) {
        int c = s.words(); // candidates: the n words and the root, less the word itself
        Arrays.fill(mean, 0);
        for (int j = 0; j <= s.words(); j++) {
          if (j == i) {
            continue;
          }
          float[] first = s.from(i, j);
          float[] second = s.from(j, i);
          for (int f = 0; f < k; f++) {
            z[f] = first[f] / scale[f];
            z[k + f] = second[f] / scale[k + f];
          }
          for (int f = 0; f < dim; f++) {
            mean[f] += z[f] / c;
            for (int g = f; g < dim; g++) {
              h[f][g] += z[f] * z[g] / c;
            }
          }
        }
        for (int f = 0; f < dim; f++) {
          for (int g = f; g < dim; g++) {
            h[f][g] -= mean[f] * mean[g];
          }
        }
        pairs += c;
        words++;
      }
    }
    return Standardise.symmetricMean(h, words, l2, dim);
  }
}
