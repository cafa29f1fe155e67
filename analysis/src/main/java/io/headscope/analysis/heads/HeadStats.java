package io.headscope.analysis.heads;

/**
 * One head's statistics on one input (or their mean over a corpus); definitions in METHODS.md.
 *
 * @param entropy Clark's entropy: each row smoothed as {@code 0.9999 A + 0.0001/n}, then
 *     {@code -sum_j A_ij ln A_ij}, averaged over rows (nats)
 * @param previous mean of {@code A_{i,i-1}} over the rows that have a previous token
 * @param next mean of {@code A_{i,i+1}} over the rows that have a next token
 * @param self mean of {@code A_ii}
 * @param cls mean over rows of the weight on {@code [CLS]}
 * @param sep mean over rows of the weight on every {@code [SEP]}
 * @param punct mean over rows of the weight on {@code .} and {@code ,}
 * @param other the rest: {@code 1 - cls - sep - punct}
 * @param meanValueNorm mean over tokens of {@code ||f^h(x_j)||}
 * @param normCls the share of {@code [CLS]} under norm weighting ({@code N_ij = A_ij ||f(x_j)||},
 *     each row divided by its sum), mean over rows
 * @param normSep the same for {@code [SEP]}
 * @param normPunct the same for {@code .} and {@code ,}
 * @param normOther the same for the rest
 */
public record HeadStats(
    double entropy,
    double previous,
    double next,
    double self,
    double cls,
    double sep,
    double punct,
    double other,
    double meanValueNorm,
    double normCls,
    double normSep,
    double normPunct,
    double normOther) {

  /** Weight shares in {@link TokenType} order. */
  public double[] weightShares() {
    return new double[] {cls, sep, punct, other};
  }

  /** Norm-weighted shares in {@link TokenType} order. */
  public double[] normShares() {
    return new double[] {normCls, normSep, normPunct, normOther};
  }

  double[] toArray() {
    return new double[] {entropy, previous, next, self, cls, sep, punct, other, meanValueNorm,
        normCls, normSep, normPunct, normOther};
  }

  static HeadStats fromArray(double[] a) {
    return new HeadStats(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12]);
  }

  static final int FIELDS = 13;
}
