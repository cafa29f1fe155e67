package io.headscope.analysis.distance;

import io.headscope.analysis.corpus.CorpusProblem;
import io.headscope.model.core.Head;
import java.util.List;

/**
 * How alike every pair of heads attends (Clark et al. 2019, Section 6): the Jensen-Shannon
 * divergence between their attention distributions, mean over query rows and over inputs
 * (METHODS.md, "Head distances"). Heads are numbered layer-major ({@code layer * heads + head}).
 *
 * @param model the model's name
 * @param source what was averaged over: "text" for one input, else the corpus's name
 * @param layers the model's layers
 * @param heads heads per layer
 * @param divergence {@code [a][b]}: mean JS between heads a and b, in nats; symmetric, zero diagonal
 * @param inputs how many inputs the mean is over
 * @param skipped how many lines were skipped
 * @param problems the first skipped lines with their reasons
 */
public record HeadDistances(String model, String source, int layers, int heads, double[][] divergence, int inputs,
    int skipped, List<CorpusProblem> problems) {

  public HeadDistances {
    int k = layers * heads;
    if (divergence.length != k) {
      throw new IllegalArgumentException(divergence.length + " rows for " + k + " heads");
    }
    divergence = copy(divergence);
    problems = List.copyOf(problems);
  }

  /** A copy: the record stays immutable. */
  @Override
  public double[][] divergence() {
    return copy(divergence);
  }

  /** Mean JS divergence between two heads, in nats. */
  public double divergence(Head a, Head b) {
    return divergence[index(a)][index(b)];
  }

  /**
   * The Jensen-Shannon distance {@code sqrt(JS)} between every pair: a metric, and Euclidean (see
   * {@link ClassicalMds}), the dissimilarity the head map is drawn from.
   */
  public double[][] distances() {
    double[][] d = new double[divergence.length][];
    for (int a = 0; a < d.length; a++) {
      d[a] = new double[divergence.length];
      for (int b = 0; b < d.length; b++) {
        d[a][b] = Math.sqrt(divergence[a][b]);
      }
    }
    return d;
  }

  public int count() {
    return layers * heads;
  }

  public int index(Head h) {
    return h.layer() * heads + h.head();
  }

  public Head head(int index) {
    return new Head(index / heads, index % heads);
  }

  private static double[][] copy(double[][] m) {
    double[][] c = new double[m.length][];
    for (int i = 0; i < m.length; i++) {
      if (m[i].length != m.length) {
        throw new IllegalArgumentException("row " + i + " has " + m[i].length + " columns, not " + m.length);
      }
      c[i] = m[i].clone();
    }
    return c;
  }
}
