package io.headscope.analysis.evaluation;

import java.util.List;
import java.util.Locale;

/**
 * How two labellings of the same items agree (a person against a person, or a classifier against a
 * consensus): the confusion counts and what a reviewer reads off them. Classes are indices
 * {@code 0..k-1}; {@code names} only label the printout.
 *
 * @param names the classes, in index order
 * @param counts {@code counts[truth][said]}: items the reference put in {@code truth} and the other
 *     labelling in {@code said}
 */
public record Confusion(List<String> names, long[][] counts) {

  public Confusion {
    names = List.copyOf(names);
    if (counts.length != names.size()) {
      throw new IllegalArgumentException(counts.length + " rows for " + names.size() + " classes");
    }
  }

  /** Counts the pairs {@code (truth[i], said[i])}. */
  public static Confusion of(List<String> names, int[] truth, int[] said) {
    if (truth.length != said.length) {
      throw new IllegalArgumentException(truth.length + " references for " + said.length + " labels");
    }
    long[][] c = new long[names.size()][names.size()];
    for (int i = 0; i < truth.length; i++) {
      c[truth[i]][said[i]]++;
    }
    return new Confusion(names, c);
  }

  public int classes() {
    return names.size();
  }

  public long total() {
    long n = 0;
    for (long[] row : counts) {
      for (long v : row) {
        n += v;
      }
    }
    return n;
  }

  /** Items both put in the same class. */
  public long agreed() {
    long a = 0;
    for (int c = 0; c < counts.length; c++) {
      a += counts[c][c];
    }
    return a;
  }

  /** Raw agreement: the share of items both put in the same class. */
  public double agreement() {
    return agreed() / (double) total();
  }

  /** Items the reference put in {@code c}. */
  public long truthCount(int c) {
    long n = 0;
    for (long v : counts[c]) {
      n += v;
    }
    return n;
  }

  /** Items the other labelling put in {@code c}. */
  public long saidCount(int c) {
    long n = 0;
    for (long[] row : counts) {
      n += row[c];
    }
    return n;
  }

  /**
   * Cohen's kappa: {@code (p_o - p_e) / (1 - p_e)}, with {@code p_e = sum_c (truth_c / N)(said_c / N)}
   * the agreement two independent labellings with these class shares would reach by chance.
   */
  public double kappa() {
    double n = total();
    double pe = 0;
    for (int c = 0; c < classes(); c++) {
      pe += truthCount(c) / n * (saidCount(c) / n);
    }
    return pe >= 1 ? 1 : (agreement() - pe) / (1 - pe);
  }

  /** Of the items said to be {@code c}, the share the reference put there (NaN when none were). */
  public double precision(int c) {
    long said = saidCount(c);
    return said == 0 ? Double.NaN : counts[c][c] / (double) said;
  }

  /** Of the items the reference put in {@code c}, the share also said to be {@code c} (NaN when none). */
  public double recall(int c) {
    long truth = truthCount(c);
    return truth == 0 ? Double.NaN : counts[c][c] / (double) truth;
  }

  /**
   * Kappa of class {@code c} against the rest (both labellings reduced to "c or not"): how well the two
   * agree on this one category, beyond chance.
   */
  public double kappa(int c) {
    long[][] two = new long[2][2];
    for (int t = 0; t < classes(); t++) {
      for (int s = 0; s < classes(); s++) {
        two[t == c ? 0 : 1][s == c ? 0 : 1] += counts[t][s];
      }
    }
    return new Confusion(List.of("in", "out"), two).kappa();
  }

  /** Agreement on class {@code c}: items both put in {@code c} over items either put there. */
  public double positiveAgreement(int c) {
    long either = truthCount(c) + saidCount(c) - counts[c][c];
    return either == 0 ? Double.NaN : counts[c][c] / (double) either;
  }

  /** The matrix as aligned text, rows the reference, columns the other labelling. */
  public String table(String rowsAre, String columnsAre) {
    StringBuilder b = new StringBuilder();
    int w = 18;
    b.append(String.format(Locale.ROOT, "%-" + w + "s", rowsAre + " \\ " + columnsAre));
    for (String n : names) {
      b.append(String.format(Locale.ROOT, " %8.8s", n));
    }
    b.append('\n');
    for (int t = 0; t < classes(); t++) {
      b.append(String.format(Locale.ROOT, "%-" + w + "s", names.get(t)));
      for (int s = 0; s < classes(); s++) {
        b.append(String.format(Locale.ROOT, " %8d", counts[t][s]));
      }
      b.append('\n');
    }
    return b.toString();
  }
}
