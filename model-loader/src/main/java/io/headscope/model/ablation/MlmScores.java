package io.headscope.model.ablation;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import io.headscope.model.engine.BertEncoder;

/** The masked-LM measurements shared by the sweep and the gradient importance. */
final class MlmScores {
  private MlmScores() {}

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
   * Per row of variants: {@code {mean logprob of the targets, top-1 accuracy, mean KL(intact || variant)}}.
   *
   * @param logq (B * M, V) the variants' log-probabilities
   * @param logp (M, V) the intact model's at the same positions
   */
  static double[][] measure(NDArray logq, NDArray logp, long[] targets) {
    int m = targets.length;
    long vocab = logq.getShape().get(1);
    int b = (int) logq.getShape().get(0) / m;
    float[] lp = targetLogProbs(logq, targets).toFloatArray();
    long[] top = logq.argMax(-1).toLongArray();
    // every operand first in these products belongs to logq's (per-step) manager: DJL puts a result on
    // its first operand's manager, and logp lives for the whole input, so logp.exp()... would pile up
    // (B + 1) * M * V floats per step until the input is done
    NDArray p = logp.exp(); // (M, V)
    p.attach(logq.getManager());
    float[] kl = logq.reshape(b, m, vocab).neg().add(logp).mul(p).sum(new int[] {-1}).toFloatArray(); // (B, M)
    double[][] out = new double[b][3];
    for (int r = 0; r < b; r++) {
      for (int i = 0; i < m; i++) {
        out[r][0] += lp[r * m + i] / m;
        out[r][1] += (top[r * m + i] == targets[i] ? 1.0 : 0.0) / m;
        out[r][2] += Math.max(0, kl[r * m + i]) / m;
      }
    }
    return out;
  }
}
