package io.headscope.model.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The readouts of {@link Readouts} from the encoder's output, in tensors; out come Java arrays. */
final class MlmReadouts {
  private MlmReadouts() {}

  /**
   * The distribution at every position holding {@code maskId}, or with {@link Readouts#NEXT_TOKEN} at each
   * input's last token (a causal model's guess at the token after the text), in one product for the batch.
   */
  static List<List<RunResult.MaskDistribution>> maskedLm(BertEncoder enc, Batch batch, long[][] ids, NDArray x,
      long maskId) {
    int t = batch.width();
    List<List<RunResult.MaskDistribution>> out = new ArrayList<>();
    List<Long> rows = new ArrayList<>();
    for (int i = 0; i < ids.length; i++) {
      out.add(new ArrayList<>());
      for (int q = 0; q < ids[i].length; q++) {
        if (maskId == Readouts.NEXT_TOKEN ? q == ids[i].length - 1 : ids[i][q] == maskId) {
          rows.add((long) i * t + q);
        }
      }
    }
    if (rows.isEmpty()) {
      return out;
    }
    int d = (int) x.getShape().get(2);
    NDArray index = x.getManager().create(rows.stream().mapToLong(Long::longValue).toArray());
    NDArray probs = enc.mlmLogits(x.reshape(-1, d).get(index)).softmax(-1); // (M, V)
    int vocab = (int) probs.getShape().get(1);
    float[] all = probs.toFloatArray();
    for (int r = 0; r < rows.size(); r++) {
      float[] dist = new float[vocab];
      System.arraycopy(all, r * vocab, dist, 0, vocab);
      out.get((int) (rows.get(r) / t)).add(new RunResult.MaskDistribution((int) (rows.get(r) % t), dist));
    }
    return out;
  }

  /** Softmax over the classifier's labels, {@code [input][label]}. */
  static float[][] classifier(BertEncoder enc, NDArray x) {
    NDArray probs = enc.classifierLogits(x).softmax(-1); // (B, labels)
    int b = (int) probs.getShape().get(0);
    int labels = (int) probs.getShape().get(1);
    float[] flat = probs.toFloatArray();
    float[][] out = new float[b][labels];
    for (int i = 0; i < b; i++) {
      System.arraycopy(flat, i * labels, out[i], 0, labels);
    }
    return out;
  }

  /**
   * Log-probabilities over the vocabulary at the same {@code positions} of every row of {@code x}
   * (B, T, d): (B * M, V), row {@code b * M + i} for position {@code i} of input row {@code b}.
   */
  static NDArray logProbs(BertEncoder enc, NDArray x, int[] positions) {
    return logProbs(enc, x, List.of(positions));
  }

  /**
   * Log-probabilities over the vocabulary at each row's own positions, row {@code b} taking
   * {@code cycle.get(b % k)} ({@link Readouts}): (sum of the rows' position counts, V), row after row.
   */
  static NDArray logProbs(BertEncoder enc, NDArray x, List<int[]> cycle) {
    Shape s = x.getShape();
    long b = s.get(0);
    long t = s.get(1);
    List<Long> rows = new ArrayList<>();
    for (long r = 0; r < b; r++) {
      for (int p : cycle.get((int) (r % cycle.size()))) {
        rows.add(r * t + p);
      }
    }
    NDArray index = x.getManager().create(rows.stream().mapToLong(Long::longValue).toArray());
    return enc.mlmLogits(x.reshape(-1, s.get(2)).get(index)).logSoftmax(-1); // (R, V)
  }

  /** {@link #logProbs(BertEncoder, NDArray, List)} as {@code [row][position][vocab]}. */
  static float[][][] logProbArrays(BertEncoder enc, NDArray x, List<int[]> cycle) {
    NDArray lp = logProbs(enc, x, cycle);
    int rows = (int) x.getShape().get(0);
    int vocab = (int) lp.getShape().get(1);
    float[] flat = lp.toFloatArray();
    float[][][] out = new float[rows][][];
    int at = 0;
    for (int r = 0; r < rows; r++) {
      int m = cycle.get(r % cycle.size()).length;
      out[r] = new float[m][vocab];
      for (int i = 0; i < m; i++, at++) {
        System.arraycopy(flat, at * vocab, out[r][i], 0, vocab);
      }
    }
    return out;
  }

  /** The log-probabilities of {@code targets} (repeated for each of the B rows): (B * M, 1). */
  static NDArray targetLogProbs(NDArray logq, long[] targets) {
    int rows = (int) logq.getShape().get(0);
    long[] index = new long[rows];
    for (int r = 0; r < rows; r++) {
      index[r] = targets[r % targets.length];
    }
    NDManager m = logq.getManager();
    return logq.gather(m.create(index, new Shape(rows, 1)), 1);
  }

  /**
   * Per row of {@code x}: the target log-probabilities, the top tokens and {@code KL(reference || row)},
   * row {@code b} compared by {@code cycle.get(b % k)} ({@link Readouts}).
   */
  static RunResult.TargetScores[] compare(BertEncoder enc, NDArray x, List<Readouts.Comparison> cycle) {
    boolean contrasts = cycle.get(0).contrasts() != null;
    if (cycle.stream().anyMatch(c -> (c.contrasts() != null) != contrasts)) {
      throw new IllegalArgumentException("some comparisons have contrasts and some do not");
    }
    int k = cycle.size();
    int b = (int) x.getShape().get(0);
    NDArray logq = logProbs(enc, x, cycle.stream().map(Readouts.Comparison::positions).toList()); // (R, V)
    int vocab = (int) logq.getShape().get(1);
    // the references stacked, input after input, and each gathered row's reference row in that stack
    int[] offset = new int[k];
    int stacked = 0;
    for (int i = 0; i < k; i++) {
      offset[i] = stacked;
      stacked += cycle.get(i).positions().length;
    }
    float[] flatRef = new float[stacked * vocab];
    for (int i = 0; i < k; i++) {
      float[][] ref = cycle.get(i).reference();
      for (int p = 0; p < ref.length; p++) {
        System.arraycopy(ref[p], 0, flatRef, (offset[i] + p) * vocab, vocab);
      }
    }
    int total = (int) logq.getShape().get(0);
    long[] refRow = new long[total];
    long[] targets = new long[total];
    long[] contrastIds = contrasts ? new long[total] : null;
    int at = 0;
    for (int r = 0; r < b; r++) {
      Readouts.Comparison c = cycle.get(r % k);
      for (int p = 0; p < c.positions().length; p++, at++) {
        refRow[at] = offset[r % k] + p;
        targets[at] = c.targets()[p];
        if (contrasts) {
          contrastIds[at] = c.contrasts()[p];
        }
      }
    }
    // every operand first in these products belongs to logq's manager: DJL puts a result on its first
    // operand's manager
    NDManager m = logq.getManager();
    NDArray logp = m.create(flatRef, new Shape(stacked, vocab)).get(m.create(refRow)); // (R, V)
    float[] lp = logq.gather(m.create(targets, new Shape(total, 1)), 1).toFloatArray();
    float[] clp = contrasts ? logq.gather(m.create(contrastIds, new Shape(total, 1)), 1).toFloatArray() : null;
    long[] top = logq.argMax(-1).toLongArray();
    NDArray p = logp.exp(); // (R, V)
    float[] kl = logq.neg().add(logp).mul(p).sum(new int[] {-1}).toFloatArray(); // (R)
    RunResult.TargetScores[] out = new RunResult.TargetScores[b];
    at = 0;
    for (int r = 0; r < b; r++) {
      int mr = cycle.get(r % k).positions().length;
      float[] rc = null;
      if (clp != null) {
        rc = Arrays.copyOfRange(clp, at, at + mr);
      }
      out[r] = new RunResult.TargetScores(Arrays.copyOfRange(lp, at, at + mr), Arrays.copyOfRange(top, at, at + mr),
          Arrays.copyOfRange(kl, at, at + mr), rc);
      at += mr;
    }
    return out;
  }
}
