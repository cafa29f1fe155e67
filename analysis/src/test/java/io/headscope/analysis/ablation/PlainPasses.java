package io.headscope.analysis.ablation;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.MaskPrediction;
import java.util.List;
import java.util.Set;

/**
 * The slow reference for the sweep: one plain forward pass ({@link BertModel#trace}) per variant,
 * its metrics computed here in double precision from the returned distributions.
 */
final class PlainPasses {
  private PlainPasses() {}

  /** {@code {logprob, accuracy, kl}} with {@code off} switched off, on the probe's input. */
  static double[] measure(BertModel model, MlmProbe probe, Set<Head> off, HeadMask.Mode mode) {
    AttentionTrace intact = model.trace(TraceRequest.of(probe.input()).top(1)).get(0);
    AttentionTrace ablated = off.isEmpty() ? intact : model.trace(TraceRequest.of(probe.input())
        .mask(HeadMask.of(off, mode)).top(1)).get(0);
    List<MaskPrediction> before = intact.predictions();
    List<MaskPrediction> after = ablated.predictions();
    int m = probe.positions().length;
    double lp = 0;
    double acc = 0;
    double kl = 0;
    for (int i = 0; i < m; i++) {
      if (after.get(i).position() != probe.positions()[i]) {
        throw new AssertionError("positions differ");
      }
      long target = probe.kind() == MlmProbe.Kind.MASKS ? before.get(i).top().get(0).id() : probe.originals()[i];
      float[] p = before.get(i).probabilities();
      float[] q = after.get(i).probabilities();
      lp += Math.log(q[(int) target]) / m;
      acc += (after.get(i).top().get(0).id() == target ? 1.0 : 0.0) / m;
      double sum = 0;
      for (int v = 0; v < p.length; v++) {
        if (p[v] > 0) {
          sum += p[v] * (Math.log(p[v]) - Math.log(q[v]));
        }
      }
      kl += sum / m;
    }
    return new double[] {lp, acc, kl};
  }
}
