package io.headscope.analysis.distance;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.DoubleConsumer;
import java.util.function.IntConsumer;

/**
 * For one input, {@link JensenShannon#meanOverRows} between every pair of heads at once: a K x K
 * matrix (K = layers x heads, layer-major), symmetric with a zero diagonal.
 *
 * <p>Cost: one logarithm per pair, query and key (10,296 pairs x n^2 for bert-base), so the work is
 * arranged around it. Per cell, {@code 1/2 p log(p/m) + 1/2 q log(q/m) = 1/2 p log p + 1/2 q log q
 * - m log m} exactly, so each head's {@code sum_j p log p} per row is computed once and a pair costs
 * one {@link FastLog#log} per cell. The pairs are cut into K/2 tasks of equal size (row a and row
 * K-2-a of the upper triangle) that the caller's thread and the common pool's threads take in turn:
 * both cores busy, no extra memory (the smoothing is applied on the fly), and the same numbers
 * however the tasks fall.
 */
public final class PairwiseDivergence {
  private PairwiseDivergence() {}

  /** All pairs, without cancel or progress. */
  public static double[][] of(float[][][][] attention, double smoothing) {
    return of(attention, smoothing, () -> false, f -> {});
  }

  /**
   * @param attention {@code [layer][head][query][key]} of one input, every map n x n
   * @param smoothing {@code s} in {@code (1 - s) A + s / n}: {@link JensenShannon#CLARK_SMOOTHING}
   * @param cancelled polled between tasks (from any thread); when true the call ends with a {@link
   *     CancellationException}
   * @param fraction hears the share of pairs done, on the caller's thread only
   * @return {@code [a][b]}: the mean over query rows of JS between heads a and b, heads numbered
   *     {@code layer * heads + head}
   */
  public static double[][] of(float[][][][] attention, double smoothing, BooleanSupplier cancelled,
      DoubleConsumer fraction) {
    List<float[][]> maps = new ArrayList<>();
    for (float[][][] layer : attention) {
      for (float[][] map : layer) {
        maps.add(map);
      }
    }
    int k = maps.size();
    int n = k == 0 ? 0 : maps.get(0).length;
    for (float[][] m : maps) {
      if (m.length != n || (n > 0 && m[0].length != n)) {
        throw new IllegalArgumentException("every map must be " + n + " x " + n);
      }
    }
    double[][] out = new double[k][k];
    if (k < 2 || n == 0) {
      return out;
    }
    double keep = 1 - smoothing;
    double floor = smoothing / n;
    double[][] selfTerm = new double[k][n]; // sum_j p log p of each smoothed row
    for (int h = 0; h < k; h++) {
      for (int i = 0; i < n; i++) {
        float[] row = maps.get(h)[i];
        double s = 0;
        for (int j = 0; j < n; j++) {
          s += FastLog.xLogX(keep * row[j] + floor);
        }
        selfTerm[h][i] = s;
      }
    }
    // task t: rows t and k-2-t of the upper triangle, (k-1-t) + (t+1) = k pairs each (the middle row alone)
    int tasks = k / 2;
    AtomicInteger next = new AtomicInteger();
    AtomicInteger done = new AtomicInteger();
    IntConsumer task = t -> {
      row(t, maps, selfTerm, keep, floor, out);
      if (k - 2 - t != t) {
        row(k - 2 - t, maps, selfTerm, keep, floor, out);
      }
    };
    Runnable helper = () -> {
      for (int t; (t = next.getAndIncrement()) < tasks && !cancelled.getAsBoolean(); ) {
        task.accept(t);
        done.incrementAndGet();
      }
    };
    int helpers = Math.min(ForkJoinPool.getCommonPoolParallelism(), Runtime.getRuntime().availableProcessors() - 1);
    List<CompletableFuture<Void>> running = new ArrayList<>();
    for (int i = 0; i < helpers; i++) {
      running.add(CompletableFuture.runAsync(helper));
    }
    // the caller takes tasks too, and alone reports progress
    for (int t; (t = next.getAndIncrement()) < tasks && !cancelled.getAsBoolean(); ) {
      task.accept(t);
      fraction.accept(done.incrementAndGet() / (double) tasks);
    }
    running.forEach(CompletableFuture::join);
    if (cancelled.getAsBoolean() && done.get() < tasks) {
      throw new CancellationException("cancelled after " + done.get() + " of " + tasks + " head-distance tasks");
    }
    return out;
  }

  /** Row a of the upper triangle: the pairs (a, b) for every b > a, written to both halves. */
  private static void row(int a, List<float[][]> maps, double[][] selfTerm, double keep, double floor,
      double[][] out) {
    float[][] p = maps.get(a);
    int n = p.length;
    for (int b = a + 1; b < maps.size(); b++) {
      float[][] q = maps.get(b);
      double sum = 0;
      for (int i = 0; i < n; i++) {
        float[] pi = p[i];
        float[] qi = q[i];
        double mixed = 0;
        for (int j = 0; j < n; j++) {
          mixed += FastLog.xLogX(0.5 * (keep * pi[j] + floor + keep * qi[j] + floor));
        }
        sum += 0.5 * selfTerm[a][i] + 0.5 * selfTerm[b][i] - mixed;
      }
      // JS >= 0; the identity above can leave -1e-17 where two heads agree exactly
      double js = Math.max(0, sum / n);
      out[a][b] = js;
      out[b][a] = js;
    }
  }
}
