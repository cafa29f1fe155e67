package io.headscope.analysis.circuits;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.analysis.causal.PatchInputs;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.LayerNormWeights;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.engine.RunResult;
import io.headscope.model.tokenizer.Encoding;
import java.util.Collections;
import java.util.List;
import java.util.Set;

/**
 * What every edge analysis of one clean input starts from: each component's output on the clean run and the
 * value an ablated edge carries instead (the corrupted run's, or the mean over a set of corrupted inputs), each
 * layer's attention-output bias, and the model's LayerNorms; with the arithmetic of the stream between senders
 * and receivers ({@link #chain}).
 *
 * <p>The stream a receiver reads, from the component outputs (docs/METHODS.md, "Edges"): {@code x_0} the
 * embeddings; per layer {@code a = x + sum_h result_h + b_O}, {@code m = ln1(a)} (post-LayerNorm) or {@code a}
 * (pre), {@code u = m + mlp}, {@code x' = ln2(u)} (post) or {@code u} (pre). A head reads {@code x} of its layer
 * (a pre-LayerNorm model's {@code ln1} belongs to the head), an MLP {@code m} (the pre model's {@code ln2}
 * belongs to it), the logits the last {@code x}.
 */
final class EdgeRuns {
  final BertModel model;
  final PatchInputs in;
  final TargetMetric metric;
  final Ablation ablation;
  final CircuitGraph graph;
  final int layers;
  final int heads;
  final int tokens;
  final int hidden;
  /** Key/value heads per layer: {@code heads} unless grouped-query. */
  final int groups;
  /** GPT-NeoX's parallel residual: the MLP reads the layer's input. */
  final boolean parallel;
  final boolean pre;
  final LayerNormWeights norms;
  final Outputs clean;
  final Outputs ablated;
  /** Each layer's attention-output bias as the stream sees it, (T d): {@code attn_out - sum_h result_h} of the clean run. */
  final double[][] bias;
  final double cleanMetric;
  /** The metric of the corrupted run (with mean ablation: the first corrupted input's). */
  final double corruptedMetric;
  final float[][] cleanLogProbs;

  /** Component outputs of one run, (T d) each, in double. */
  record Outputs(double[] embed, double[][][] heads, double[][] mlp, double[][] residPre, double[][] attnOut,
      double[][] residMid) {

    double[] of(CircuitNode s) {
      return switch (s.kind()) {
        case EMBEDDINGS -> embed;
        case HEAD -> heads[s.layer()][s.head()];
        case MLP -> mlp[s.layer()];
        case LOGITS, GROUP -> throw new IllegalArgumentException("the logits and key/value groups send nothing");
      };
    }
  }

  private EdgeRuns(BertModel model, PatchInputs in, TargetMetric metric, Ablation ablation, Outputs clean,
      Outputs ablated, double[][] bias, double cleanMetric, double corruptedMetric, float[][] cleanLogProbs) {
    this.model = model;
    this.in = in;
    this.metric = metric;
    this.ablation = ablation;
    this.layers = model.config().numHiddenLayers();
    this.heads = model.config().numAttentionHeads();
    this.groups = model.config().parts().keyValueHeads();
    this.parallel = model.config().parts().residual() == io.headscope.model.core.Parts.Residual.PARALLEL;
    this.graph = CircuitGraph.of(model);
    this.tokens = in.length();
    this.hidden = model.config().hiddenSize();
    this.norms = model.layerNormWeights();
    this.pre = norms.pre();
    this.clean = clean;
    this.ablated = ablated;
    this.bias = bias;
    this.cleanMetric = cleanMetric;
    this.corruptedMetric = corruptedMetric;
    this.cleanLogProbs = cleanLogProbs;
  }

  /**
   * @param corruptedSet with {@link Ablation#MEAN}: the inputs averaged (each of the clean input's length); the
   *     corrupted input is then used only for its metric. Ignored with {@link Ablation#CORRUPTED}.
   */
  static EdgeRuns of(BertModel model, PatchInputs in, TargetMetric metric, Ablation ablation,
      List<Encoding> corruptedSet) {
    check(model, metric);
    List<Encoding> batch = new java.util.ArrayList<>(List.of(in.clean(), in.corrupted()));
    if (ablation == Ablation.MEAN) {
      if (corruptedSet == null || corruptedSet.isEmpty()) {
        throw new HeadScopeException("--ablation mean needs a set of corrupted inputs (--corrupted-set FILE, one per line).");
      }
      for (int i = 0; i < corruptedSet.size(); i++) {
        Encoding e = corruptedSet.get(i);
        if (e.length() != in.length()) {
          throw new HeadScopeException("--corrupted-set: line " + (i + 1) + " has " + e.length() + " tokens, the clean "
              + "input " + in.length() + ": every corrupted input must have the clean input's number of tokens ("
              + String.join(" ", e.tokens()) + ").");
        }
      }
      batch.addAll(corruptedSet);
    }
    RunResult r = model.run(RunRequest.of(batch).capture(new Capture(kinds(), Set.of(), Set.of(),
        Capture.Stage.AFTER_INTERVENTIONS)).read(Readouts.none().withLogProbs(in.positions())));
    int layers = model.config().numHiddenLayers();
    Outputs clean = outputs(r, 0, 1, layers);
    Outputs ablated = ablation == Ablation.MEAN ? outputs(r, 2, batch.size() - 2, layers) : outputs(r, 1, 1, layers);
    double[][] bias = new double[layers][];
    for (int l = 0; l < layers; l++) {
      double[] b = clean.attnOut[l].clone();
      for (double[] h : clean.heads[l]) {
        for (int i = 0; i < b.length; i++) {
          b[i] -= h[i];
        }
      }
      bias[l] = b;
    }
    return new EdgeRuns(model, in, metric, ablation, clean, ablated, bias, value(metric, r.logProbs()[0]),
        value(metric, r.logProbs()[1]), r.logProbs()[0]);
  }

  /** For tests of the first-order limit: ablated outputs {@code clean + scale (ablated - clean)}. */
  EdgeRuns scaled(double scale) {
    Outputs a = new Outputs(lerp(clean.embed, ablated.embed, scale), new double[layers][heads][], new double[layers][],
        ablated.residPre, ablated.attnOut, ablated.residMid);
    for (int l = 0; l < layers; l++) {
      a.mlp[l] = lerp(clean.mlp[l], ablated.mlp[l], scale);
      for (int h = 0; h < heads; h++) {
        a.heads[l][h] = lerp(clean.heads[l][h], ablated.heads[l][h], scale);
      }
    }
    return new EdgeRuns(model, in, metric, ablation, clean, a, bias, cleanMetric, corruptedMetric, cleanLogProbs);
  }

  private static double[] lerp(double[] a, double[] b, double t) {
    double[] out = new double[a.length];
    for (int i = 0; i < a.length; i++) {
      out[i] = a[i] + t * (b[i] - a[i]);
    }
    return out;
  }

  static void check(BertModel model, TargetMetric metric) {
    io.headscope.model.core.Parts parts = model.config().parts();
    if (parts.place() == io.headscope.model.core.Parts.NormPlace.POST && parts.rms()) {
      // no family has it; the chain's post-norm arithmetic is LayerNorm's
      throw new HeadScopeException("Edges are defined here for LayerNorm or pre-norm models; " + model.name()
          + " normalises after each sublayer with an RMSNorm.");
    }
    if (parts.residual() == io.headscope.model.core.Parts.Residual.PARALLEL && parts.gated()) {
      // no family has it; EAP carries a parallel MLP's gradient through W_in of a GELU MLP
      throw new HeadScopeException("Edges are defined here for a parallel residual with a GELU MLP (GPT-NeoX); "
          + model.name() + "'s is gated.");
    }
    if (metric.kind() == TargetMetric.Kind.PROB) {
      throw new HeadScopeException("Edges measure logit-diff or logprob (the metric's gradient is a sum of "
          + "log-probabilities' gradients); use --metric logit-diff or logprob.");
    }
  }

  private static Set<HookPoint.Kind> kinds() {
    return Set.of(HookPoint.Kind.EMBED, HookPoint.Kind.RESID_PRE, HookPoint.Kind.ATTN_RESULT, HookPoint.Kind.ATTN_OUT,
        HookPoint.Kind.RESID_MID, HookPoint.Kind.MLP_OUT);
  }

  /** The mean of rows {@code from .. from + n - 1} of a run's captures. */
  private static Outputs outputs(RunResult r, int from, int n, int layers) {
    double[] embed = mean(r.cache().get(HookPoint.embed()), from, n);
    double[][][] hs = new double[layers][][];
    double[][] mlp = new double[layers][];
    double[][] pre = new double[layers][];
    double[][] out = new double[layers][];
    double[][] mid = new double[layers][];
    for (int l = 0; l < layers; l++) {
      Activation res = r.cache().get(HookPoint.of(HookPoint.Kind.ATTN_RESULT, l)); // (B, T, H, d)
      int t = res.dim(1);
      int h = res.dim(2);
      int d = res.dim(3);
      hs[l] = new double[h][t * d];
      for (int b = from; b < from + n; b++) {
        for (int i = 0; i < t; i++) {
          for (int k = 0; k < h; k++) {
            int at = ((b * t + i) * h + k) * d;
            for (int e = 0; e < d; e++) {
              hs[l][k][i * d + e] += res.data()[at + e] / (double) n;
            }
          }
        }
      }
      mlp[l] = mean(r.cache().get(HookPoint.of(HookPoint.Kind.MLP_OUT, l)), from, n);
      pre[l] = mean(r.cache().get(HookPoint.residPre(l)), from, n);
      out[l] = mean(r.cache().get(HookPoint.of(HookPoint.Kind.ATTN_OUT, l)), from, n);
      mid[l] = mean(r.cache().get(HookPoint.of(HookPoint.Kind.RESID_MID, l)), from, n);
    }
    return new Outputs(embed, hs, mlp, pre, out, mid);
  }

  private static double[] mean(Activation a, int from, int n) {
    int size = a.data().length / a.dim(0);
    double[] out = new double[size];
    for (int b = from; b < from + n; b++) {
      for (int i = 0; i < size; i++) {
        out[i] += a.data()[b * size + i];
      }
    }
    if (n > 1) {
      for (int i = 0; i < size; i++) {
        out[i] /= n;
      }
    }
    return out;
  }

  /** The metric from {@code [position][vocab]} log-probabilities: the mean over the read positions. */
  static double value(TargetMetric m, float[][] logp) {
    double sum = 0;
    for (float[] row : logp) {
      sum += m.value(row[(int) m.target()], m.hasContrast() ? row[(int) m.contrast()] : 0);
    }
    return sum / logp.length;
  }

  /** The metric of a stream given to the logits: one run of the head alone on {@code x} (1, T, d). */
  double metricOf(double[] x) {
    RunResult r = model.run(RunRequest.of(in.clean()).startingAt(layers, activation(x, 1))
        .read(Readouts.none().withLogProbs(in.positions())));
    return value(metric, r.logProbs()[0]);
  }

  Activation activation(double[] x, int rows) {
    float[] f = new float[x.length];
    for (int i = 0; i < f.length; i++) {
      f[i] = (float) x[i];
    }
    return new Activation(f, new int[] {rows, tokens, x.length / rows / tokens});
  }

  /** {@code LayerNorm(u) g + b} per token, in double, the variance biased as torch's. */
  void layerNorm(double[] u, float[] g, float[] b) {
    int d = hidden;
    for (int t = 0; t < tokens; t++) {
      int o = t * d;
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
      double inv = 1 / Math.sqrt(var / d + norms.eps());
      for (int e = 0; e < d; e++) {
        u[o + e] = (u[o + e] - mean) * inv * g[e] + b[e];
      }
    }
  }

  /**
   * The stream a receiver reads, from given component outputs: {@code x} of layer {@code layer}, or with
   * {@code mid} the MLP's input {@code m} of that layer. {@code value} gives each sender's output.
   */
  double[] chain(java.util.function.Function<CircuitNode, double[]> value, int layer, boolean mid) {
    if (mid && parallel) {
      return chain(value, layer, false); // GPT-NeoX's parallel residual: the MLP reads the layer's input
    }
    double[] x = value.apply(CircuitNode.EMBEDDINGS).clone();
    int top = mid ? layer + 1 : layer;
    for (int j = 0; j < top; j++) {
      double[] a = x;
      add(a, bias[j]);
      for (int h = 0; h < heads; h++) {
        add(a, value.apply(CircuitNode.head(j, h)));
      }
      if (!pre) {
        layerNorm(a, norms.ln1Weight()[j], norms.ln1Bias()[j]);
      }
      if (j == layer) {
        return a; // the MLP's input (sequential residual)
      }
      add(a, value.apply(CircuitNode.mlp(j)));
      if (!pre) {
        layerNorm(a, norms.ln2Weight()[j], norms.ln2Bias()[j]);
      }
      x = a;
    }
    return x;
  }

  static void add(double[] a, double[] b) {
    for (int i = 0; i < a.length; i++) {
      a[i] += b[i];
    }
  }

  private float[][] qkv;

  /**
   * Every layer's fused q, k and v weight in the checkpoint's (out, in) layout ({@link BertModel#qkvWeights}):
   * head h's rows are its {@code W^T}, (dh, d), the layout EAP projects a gradient with along d. Made once per
   * analysis: copying the weights out of the engine at every call took a fifth of EAP's Java time on bert-base
   * (a JFR profile of repeated calls, when it also transposed them).
   */
  synchronized float[][] qkvWeights() {
    if (qkv == null) {
      qkv = model.qkvWeights();
    }
    return qkv;
  }

  private float[][] mlpIn;

  /** Every layer's MLP input weight, (f, d) (out, in): for the parallel residual's MLP input gradient. */
  synchronized float[][] mlpInWeights() {
    if (mlpIn == null) {
      mlpIn = model.mlpInWeights();
    }
    return mlpIn;
  }

  /** Query heads per key/value group. */
  int groupSize() {
    return heads / groups;
  }

  static List<Encoding> copies(Encoding e, int n) {
    return Collections.nCopies(n, e);
  }

  /** The point a receiver's input is read at by the engine when it is run. */
  static HookPoint point(CircuitEdge.Input input, int layer) {
    return switch (input) {
      case Q -> HookPoint.of(HookPoint.Kind.ATTN_Q, layer);
      case K -> HookPoint.of(HookPoint.Kind.ATTN_K, layer);
      case V -> HookPoint.of(HookPoint.Kind.ATTN_V, layer);
      default -> throw new IllegalArgumentException(input.toString());
    };
  }
}
