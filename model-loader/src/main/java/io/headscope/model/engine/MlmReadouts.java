package io.headscope.model.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.List;

/** The readouts of {@link Readouts} from the encoder's output, in tensors; out come Java arrays. */
final class MlmReadouts {
  private MlmReadouts() {}

  /** The distribution at every position holding {@code maskId}, in one product for the batch. */
  static List<List<RunResult.MaskDistribution>> maskedLm(BertEncoder enc, Batch batch, long[][] ids, NDArray x,
      long maskId) {
    int t = batch.width();
    List<List<RunResult.MaskDistribution>> out = new ArrayList<>();
    List<Long> rows = new ArrayList<>();
    for (int i = 0; i < ids.length; i++) {
      out.add(new ArrayList<>());
      for (int q = 0; q < ids[i].length; q++) {
        if (ids[i][q] == maskId) {
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
    Shape s = x.getShape();
    long b = s.get(0);
    long t = s.get(1);
    long[] rows = new long[(int) b * positions.length];
    for (int r = 0; r < b; r++) {
      for (int i = 0; i < positions.length; i++) {
        rows[r * positions.length + i] = r * t + positions[i];
      }
    }
    NDArray index = x.getManager().create(rows);
    return enc.mlmLogits(x.reshape(-1, s.get(2)).get(index)).logSoftmax(-1); // (B*M, V)
  }

  /** {@link #logProbs} as {@code [row][position][vocab]}. */
  static float[][][] logProbArrays(BertEncoder enc, NDArray x, int[] positions) {
    NDArray lp = logProbs(enc, x, positions);
    int m = positions.length;
    int rows = (int) lp.getShape().get(0) / Math.max(1, m);
    int vocab = (int) lp.getShape().get(1);
    float[] flat = lp.toFloatArray();
    float[][][] out = new float[rows][m][vocab];
    for (int r = 0; r < rows; r++) {
      for (int i = 0; i < m; i++) {
        System.arraycopy(flat, (r * m + i) * vocab, out[r][i], 0, vocab);
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

  /** Per row of {@code x}: the target log-probabilities, the top tokens and {@code KL(reference || row)}. */
  static RunResult.TargetScores[] compare(BertEncoder enc, NDArray x, Readouts.Comparison c) {
    NDArray logq = logProbs(enc, x, c.positions()); // (B * M, V)
    int m = c.positions().length;
    long vocab = logq.getShape().get(1);
    int b = (int) logq.getShape().get(0) / m;
    float[] flatRef = new float[m * (int) vocab];
    for (int i = 0; i < m; i++) {
      System.arraycopy(c.reference()[i], 0, flatRef, i * (int) vocab, (int) vocab);
    }
    NDArray logp = logq.getManager().create(flatRef, new Shape(m, vocab)); // (M, V)
    float[] lp = targetLogProbs(logq, c.targets()).toFloatArray();
    float[] clp = c.contrasts() == null ? null : targetLogProbs(logq, c.contrasts()).toFloatArray();
    long[] top = logq.argMax(-1).toLongArray();
    // every operand first in these products belongs to logq's manager: DJL puts a result on its first
    // operand's manager
    NDArray p = logp.exp(); // (M, V)
    float[] kl = logq.reshape(b, m, vocab).neg().add(logp).mul(p).sum(new int[] {-1}).toFloatArray(); // (B, M)
    RunResult.TargetScores[] out = new RunResult.TargetScores[b];
    for (int r = 0; r < b; r++) {
      float[] rl = new float[m];
      long[] rt = new long[m];
      float[] rk = new float[m];
      System.arraycopy(lp, r * m, rl, 0, m);
      System.arraycopy(top, r * m, rt, 0, m);
      System.arraycopy(kl, r * m, rk, 0, m);
      float[] rc = null;
      if (clp != null) {
        rc = new float[m];
        System.arraycopy(clp, r * m, rc, 0, m);
      }
      out[r] = new RunResult.TargetScores(rl, rt, rk, rc);
    }
    return out;
  }
}
