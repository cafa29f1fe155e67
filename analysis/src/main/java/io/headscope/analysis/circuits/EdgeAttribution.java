package io.headscope.analysis.circuits;

import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.Intervention;
import io.headscope.model.engine.PointGradients;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.engine.RunResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Edge attribution patching for every edge at once (docs/METHODS.md, "Edges"): EAP (Syed et al. 2023), the
 * score {@code (ablated - clean sender output) . dM/d(the sender's share of the receiver's input)} from one
 * backward pass of the clean run; EAP-IG (Hanna et al. 2024), the receiver-side gradient averaged over m points
 * of the straight path of the input embeddings from the ablated ones to the clean ones ({@code alpha = k/m},
 * k = 1..m, one batch of m rows).
 *
 * <p>A receiver's input gradient comes from the hook points: a head's from its block of {@code attn.hook_q|k|v}
 * (a key/value group's: its query heads' blocks summed, the engine repeating the group per head), turned back
 * through the rotary turn for q and k ({@link Unrotation}), times the head's or group's {@code W^T} (and,
 * pre-norm, back through its own {@code ln1}: a LayerNorm or an RMSNorm, {@link #normBack}); a GPT-NeoX
 * parallel-residual MLP's from {@code mlp.hook_pre} times {@code W_in}, back through its {@code ln2}; any
 * other MLP's from {@code hook_resid_mid} minus {@code hook_mlp_out} (the MLP's input feeds the MLP and the residual sum, and the
 * sum's gradient is {@code hook_mlp_out}'s); the logits' from the last {@code hook_resid_post}. In a
 * pre-LayerNorm model a sender's share of the input is the input itself, so that gradient is every sender's;
 * in BERT it is carried down through the LayerNorms between the two ({@link #carry}), linearised at the clean
 * run (for EAP-IG too: the path's gradients are averaged on the receiver's side, a choice for speed that
 * METHODS.md states).
 */
final class EdgeAttribution {
  private final EdgeRuns runs;
  private final EdgeForward forward;

  EdgeAttribution(EdgeRuns runs, EdgeForward forward) {
    this.runs = runs;
    this.forward = forward;
  }

  /** @param steps 0: EAP (the clean run's gradient); m >= 1: EAP-IG with m points */
  EdgeScores scores(int steps) {
    int layers = runs.layers;
    int heads = runs.heads;
    int rows = Math.max(1, steps);
    List<HookPoint> points = new ArrayList<>();
    for (int l = 0; l < layers; l++) {
      points.add(HookPoint.of(HookPoint.Kind.ATTN_Q, l));
      points.add(HookPoint.of(HookPoint.Kind.ATTN_K, l));
      points.add(HookPoint.of(HookPoint.Kind.ATTN_V, l));
      points.add(HookPoint.of(HookPoint.Kind.RESID_MID, l));
      points.add(HookPoint.of(HookPoint.Kind.MLP_OUT, l));
    }
    points.add(HookPoint.residPost(layers - 1));
    if (runs.parallel) {
      for (int l = 0; l < layers; l++) {
        points.add(HookPoint.of(HookPoint.Kind.MLP_PRE, l)); // parallel residual: the MLPs' own input gradients
      }
    }
    Activation path = steps == 0 ? null : path(steps);
    List<Activation> g = runs.model.gradients(terms(points, path)).gradients();
    // pre-LayerNorm: each point's layer inputs, for the heads' own ln1
    double[][][] residPre = runs.pre ? residPre(path, rows) : null;
    int t = runs.tokens;
    int d = runs.hidden;
    float[][] qkv = runs.qkvWeights();
    int dh = runs.model.config().headSize();
    int groupSize = runs.groupSize();
    Unrotation[] unrotate = Unrotation.of(runs.model.config().parts(), layers, dh, t);
    double[] scores = new double[runs.graph.edges().size()];
    Stats stats = runs.pre ? null : new Stats(runs);
    double[][] delta = deltas();
    List<EdgeForward.Group> groups = forward.groups();
    // receivers are independent (each writes its own edges' scores): two cores halve the Java part
    java.util.stream.IntStream.range(0, groups.size()).parallel().forEach(gi -> {
      EdgeForward.Group grp = groups.get(gi);
      CircuitNode r = grp.receiver();
      double[] in;
      int top;
      boolean mid = false;
      switch (grp.input()) {
        case Q, K, V -> {
          int l = r.layer();
          int m = grp.input().ordinal(); // Q 0, K 1, V 2
          Activation a = g.get(l * 5 + m); // (rows, H, T, dh): one block per query head
          // the query heads whose block this input feeds: the head, or its key/value group's heads (the engine
          // repeats a group's keys and values per query head, so the group's gradient is their blocks' sum)
          boolean group = r.kind() == CircuitNode.Kind.GROUP;
          int first = group ? r.head() * groupSize : r.head();
          int count = group ? groupSize : 1;
          // the input's rows of the fused (out, in) weight: head h's W_Q^T, or key/value head g's W_K^T, W_V^T
          int row0 = (m == 0 ? r.head() : runs.heads + (m - 1) * runs.groups + r.head()) * dh;
          float[] w = qkv[l];
          in = new double[t * d];
          float[] x = new float[t * d];
          float[] block = new float[t * dh];
          if (runs.pre) {
            for (int row = 0; row < rows; row++) {
              java.util.Arrays.fill(x, 0f);
              java.util.Arrays.fill(block, 0f);
              addBlocks(a.data(), row, first, count, runs.heads, t, dh, block);
              if (m < 2 && unrotate[l] != null) {
                unrotate[l].apply(block); // queries and keys were turned by their positions after the projection
              }
              project(block, 0, w, row0 * d, t, d, dh, x);
              EdgeRuns.add(in, normBack(EdgeForward.toDouble(x), residPre[row][l], runs.norms.ln1Weight()[l], t, d,
                  runs.norms.eps(), runs.norms.rms()));
            }
          } else {
            // the projection is linear: the rows' blocks summed, projected once
            for (int row = 0; row < rows; row++) {
              addBlocks(a.data(), row, first, count, runs.heads, t, dh, block);
            }
            project(block, 0, w, row0 * d, t, d, dh, x);
            for (int i = 0; i < x.length; i++) {
              in[i] = x[i];
            }
          }
          scale(in, 1.0 / rows);
          top = l;
        }
        case MLP -> {
          int l = r.layer();
          in = runs.parallel ? mlpInput(g.get(layers * 5 + 1 + l), residPre, l, rows) : meanDiff(g.get(l * 5 + 3), g.get(l * 5 + 4), rows);
          top = l;
          mid = !runs.parallel; // parallel: the MLP reads the layer's input, what the layers below send
        }
        default -> {
          in = meanDiff(g.get(layers * 5), null, rows);
          top = layers;
        }
      }
      carry(in, top, mid, grp.start(), stats, delta, scores);
    });
    return new EdgeScores(steps == 0 ? "eap" : "eap-ig", Math.max(1, steps), runs.ablation,
        runs.metric.column(), runs.cleanMetric, runs.corruptedMetric, runs.graph.edges(), scores);
  }

  /**
   * Carries a receiver's input gradient down to every sender before it (through BERT's LayerNorms at the clean
   * run; unchanged pre-LayerNorm) and writes each sender's {@code delta . gradient} at {@code start + sender}.
   */
  private void carry(double[] grad, int top, boolean mid, int start, Stats stats, double[][] delta, double[] scores) {
    int heads = runs.heads;
    double[] cur = grad;
    // two buffers the LayerNorms' products alternate between, rather than one new array per norm
    double[] spare = stats == null ? null : new double[grad.length];
    double[] other = stats == null ? null : new double[grad.length];
    if (mid) {
      int l = top;
      if (stats != null) {
        stats.back(cur, stats.ua[l], stats.uaInv[l], runs.norms.ln1Weight()[l], spare);
        cur = spare;
        spare = other;
        other = cur;
      }
      for (int h = 0; h < heads; h++) {
        int s = 1 + l * (heads + 1) + h;
        scores[start + s] = dot(delta[s], cur);
      }
    }
    for (int j = top - 1; j >= 0; j--) {
      if (stats != null) {
        stats.back(cur, stats.um[j], stats.umInv[j], runs.norms.ln2Weight()[j], spare);
        cur = spare;
        spare = other;
        other = cur;
      }
      int s = 1 + j * (heads + 1) + heads;
      scores[start + s] = dot(delta[s], cur);
      if (stats != null) {
        stats.back(cur, stats.ua[j], stats.uaInv[j], runs.norms.ln1Weight()[j], spare);
        cur = spare;
        spare = other;
        other = cur;
      }
      for (int h = 0; h < heads; h++) {
        s = 1 + j * (heads + 1) + h;
        scores[start + s] = dot(delta[s], cur);
      }
    }
    scores[start] = dot(delta[0], cur);
  }

  /** Each sender's ablated minus clean output, in the senders' order. */
  private double[][] deltas() {
    List<CircuitNode> senders = runs.graph.senders();
    double[][] out = new double[senders.size()][];
    for (int i = 0; i < out.length; i++) {
      double[] a = runs.ablated.of(senders.get(i));
      double[] c = runs.clean.of(senders.get(i));
      double[] x = new double[a.length];
      for (int k = 0; k < x.length; k++) {
        x[k] = a[k] - c[k];
      }
      out[i] = x;
    }
    return out;
  }

  /** The m points of the path, (m, T, d): {@code ablated + (k/m)(clean - ablated)}, k = 1..m. */
  private Activation path(int steps) {
    double[] a = runs.ablated.embed();
    double[] c = runs.clean.embed();
    float[] out = new float[steps * a.length];
    for (int k = 1; k <= steps; k++) {
      double alpha = k / (double) steps;
      for (int i = 0; i < a.length; i++) {
        out[(k - 1) * a.length + i] = (float) (a[i] + alpha * (c[i] - a[i]));
      }
    }
    return new Activation(out, new int[] {steps, runs.tokens, a.length / runs.tokens});
  }

  /** The metric as a weighted sum of log-probabilities: the target's +1, the contrast's -1, over the positions' count. */
  private PointGradients terms(List<HookPoint> points, Activation path) {
    int[] positions = runs.in.positions();
    boolean contrast = runs.metric.hasContrast();
    int per = contrast ? 2 : 1;
    int[] at = new int[positions.length * per];
    long[] tokens = new long[at.length];
    float[] weights = new float[at.length];
    for (int i = 0; i < positions.length; i++) {
      at[i * per] = positions[i];
      tokens[i * per] = runs.metric.target();
      weights[i * per] = 1f / positions.length;
      if (contrast) {
        at[i * per + 1] = positions[i];
        tokens[i * per + 1] = runs.metric.contrast();
        weights[i * per + 1] = -1f / positions.length;
      }
    }
    return new PointGradients(runs.in.clean(), points, at, tokens, weights, path);
  }

  /** Every row's layer inputs, for a pre-LayerNorm model's heads: {@code [row][layer]} (T d). */
  private double[][][] residPre(Activation path, int rows) {
    if (path == null) {
      return new double[][][] {runs.clean.residPre()};
    }
    RunResult r = runs.model.run(RunRequest.of(EdgeRuns.copies(runs.in.clean(), rows))
        .intervene(new Intervention.Patch(HookPoint.embed(), path))
        .capture(new Capture(Set.of(HookPoint.Kind.RESID_PRE), Set.of(), Set.of(), Capture.Stage.AFTER_INTERVENTIONS))
        .stoppingBefore(runs.layers));
    double[][][] out = new double[rows][runs.layers][];
    for (int l = 0; l < runs.layers; l++) {
      float[] data = r.cache().get(HookPoint.residPre(l)).data();
      int size = data.length / rows;
      for (int row = 0; row < rows; row++) {
        double[] x = new double[size];
        for (int i = 0; i < size; i++) {
          x[i] = data[row * size + i];
        }
        out[row][l] = x;
      }
    }
    return out;
  }

  /**
   * The gradient at a GELU MLP's input stream (GPT-NeoX's parallel residual, where no hook point carries it):
   * {@code mlp.hook_pre}'s (rows, T, f), times {@code W_in} (f, d), back through the MLP's own norm ({@code ln2})
   * at each row's layer input; the rows' mean.
   */
  private double[] mlpInput(Activation pre, double[][][] residPre, int l, int rows) {
    int t = runs.tokens;
    int d = runs.hidden;
    float[] w = runs.mlpInWeights()[l];
    int f = w.length / d;
    double[] in = new double[t * d];
    for (int row = 0; row < rows; row++) {
      float[] x = new float[t * d];
      project(pre.data(), row * t * f, w, 0, t, d, f, x);
      EdgeRuns.add(in, normBack(EdgeForward.toDouble(x), residPre[row][l], runs.norms.ln2Weight()[l], t, d,
          runs.norms.eps(), runs.norms.rms()));
    }
    scale(in, 1.0 / rows);
    return in;
  }

  /** Adds query heads {@code first .. first + count - 1}'s (T, dh) blocks of batch row {@code row} of a (rows, H, T, dh) gradient. */
  private static void addBlocks(float[] g, int row, int first, int count, int heads, int t, int dh, float[] out) {
    for (int h = first; h < first + count; h++) {
      int base = (row * heads + h) * t * dh;
      for (int i = 0; i < out.length; i++) {
        out[i] += g[base + i];
      }
    }
  }

  /**
   * A (T, dh) block of a gradient, from {@code base} in {@code g}, times one head's {@code W^T}: (T d), added to
   * {@code out}. {@code w} holds the fused weight in the (out, in) layout, the head's {@code W^T} as dh rows of d
   * from {@code wBase}, so the inner loop runs along d over contiguous memory (an axpy the JIT vectorises).
   */
  private static void project(float[] g, int base, float[] w, int wBase, int t, int d, int dh, float[] out) {
    for (int i = 0; i < t; i++) {
      int o = i * d;
      for (int j = 0; j < dh; j++) {
        float c = g[base + i * dh + j];
        int wi = wBase + j * d;
        for (int e = 0; e < d; e++) {
          out[o + e] += c * w[wi + e];
        }
      }
    }
  }

  /** The rows' mean of {@code a - b} (b null: of a), (T d). */
  private static double[] meanDiff(Activation a, Activation b, int rows) {
    int size = a.data().length / rows;
    double[] out = new double[size];
    for (int row = 0; row < rows; row++) {
      for (int i = 0; i < size; i++) {
        out[i] += a.data()[row * size + i] - (b == null ? 0 : b.data()[row * size + i]);
      }
    }
    scale(out, 1.0 / rows);
    return out;
  }

  private static void scale(double[] a, double s) {
    for (int i = 0; i < a.length; i++) {
      a[i] *= s;
    }
  }

  /** {@code dL/du} from {@code dL/dy} for {@code y = LayerNorm(u) g + b} at {@code u}, computed from u. */
  static double[] lnBack(double[] grad, double[] u, float[] g, int t, int d, double eps) {
    return normBack(grad, u, g, t, d, eps, false);
  }

  /**
   * {@code dL/du} from {@code dL/dy} for a pre-norm's {@code y = norm(u)} at {@code u}: a LayerNorm's ({@link
   * #back}), an RMSNorm's {@code inv (g' - xhat mean(g' xhat))} with {@code xhat = u inv}, {@code inv = 1 /
   * sqrt(mean(u^2) + eps)}, {@code g' = gamma grad} (the LayerNorm's without the mean terms), or the gradient
   * itself where the layer has no norm ({@code g} null: ModernBERT's first attention).
   */
  static double[] normBack(double[] grad, double[] u, float[] g, int t, int d, double eps, boolean rms) {
    if (g == null) {
      return grad.clone();
    }
    if (!rms) {
      double[] xhat = new double[u.length];
      double[] inv = new double[t];
      normalise(u, xhat, inv, t, d, eps);
      return back(grad, xhat, inv, g, t, d);
    }
    double[] out = new double[grad.length];
    for (int i = 0; i < t; i++) {
      int o = i * d;
      double ms = 0;
      for (int e = 0; e < d; e++) {
        ms += u[o + e] * u[o + e];
      }
      double inv = 1 / Math.sqrt(ms / d + eps);
      double m2 = 0;
      for (int e = 0; e < d; e++) {
        m2 += g[e] * grad[o + e] * u[o + e] * inv;
      }
      m2 /= d;
      for (int e = 0; e < d; e++) {
        out[o + e] = inv * (g[e] * grad[o + e] - u[o + e] * inv * m2);
      }
    }
    return out;
  }

  static void normalise(double[] u, double[] xhat, double[] inv, int t, int d, double eps) {
    for (int i = 0; i < t; i++) {
      int o = i * d;
      double mean = 0;
      for (int e = 0; e < d; e++) {
        mean += u[o + e];
      }
      mean /= d;
      double var = 0;
      for (int e = 0; e < d; e++) {
        double c = u[o + e] - mean;
        var += c * c;
      }
      inv[i] = 1 / Math.sqrt(var / d + eps);
      for (int e = 0; e < d; e++) {
        xhat[o + e] = (u[o + e] - mean) * inv[i];
      }
    }
  }

  /** The LayerNorm's vector-Jacobian product: {@code inv (g' - mean(g') - xhat mean(g' xhat))}, {@code g' = gamma grad}. */
  static double[] back(double[] grad, double[] xhat, double[] inv, float[] gamma, int t, int d) {
    return back(grad, xhat, inv, gamma, t, d, new double[grad.length]);
  }

  static double[] back(double[] grad, double[] xhat, double[] inv, float[] gamma, int t, int d, double[] out) {
    for (int i = 0; i < t; i++) {
      int o = i * d;
      double m1 = 0;
      double m2 = 0;
      for (int e = 0; e < d; e++) {
        double gp = gamma[e] * grad[o + e];
        out[o + e] = gp;
        m1 += gp;
        m2 += gp * xhat[o + e];
      }
      m1 /= d;
      m2 /= d;
      for (int e = 0; e < d; e++) {
        out[o + e] = inv[i] * (out[o + e] - m1 - xhat[o + e] * m2);
      }
    }
    return out;
  }

  static double dot(double[] a, double[] b) {
    double s0 = 0;
    double s1 = 0;
    double s2 = 0;
    double s3 = 0;
    int n = a.length & ~3;
    for (int i = 0; i < n; i += 4) {
      s0 += a[i] * b[i];
      s1 += a[i + 1] * b[i + 1];
      s2 += a[i + 2] * b[i + 2];
      s3 += a[i + 3] * b[i + 3];
    }
    for (int i = n; i < a.length; i++) {
      s0 += a[i] * b[i];
    }
    return (s0 + s1) + (s2 + s3);
  }

  /** The clean run's LayerNorm inputs, normalised, for BERT's chain: per layer the attention's and the MLP's. */
  private static final class Stats {
    final double[][] ua;
    final double[][] uaInv;
    final double[][] um;
    final double[][] umInv;
    final int t;
    final int d;

    Stats(EdgeRuns runs) {
      int layers = runs.layers;
      t = runs.tokens;
      d = runs.hidden;
      ua = new double[layers][];
      uaInv = new double[layers][];
      um = new double[layers][];
      umInv = new double[layers][];
      for (int l = 0; l < layers; l++) {
        double[] a = runs.clean.residPre()[l].clone();
        EdgeRuns.add(a, runs.clean.attnOut()[l]);
        ua[l] = new double[a.length];
        uaInv[l] = new double[t];
        normalise(a, ua[l], uaInv[l], t, d, runs.norms.eps());
        double[] m = runs.clean.residMid()[l].clone();
        EdgeRuns.add(m, runs.clean.mlp()[l]);
        um[l] = new double[m.length];
        umInv[l] = new double[t];
        normalise(m, um[l], umInv[l], t, d, runs.norms.eps());
      }
    }

    void back(double[] grad, double[] xhat, double[] inv, float[] gamma, double[] out) {
      EdgeAttribution.back(grad, xhat, inv, gamma, t, d, out);
    }
  }
}
