package io.headscope.analysis.ablation;

import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What switching each head off alone (and, if asked, each whole layer) does to masked-LM quality,
 * for one input or averaged over a corpus (each input weighs the same).
 *
 * <p>Quality is measured at the probe positions of {@link MlmProbe}: {@code logprob} is the mean
 * natural-log probability of the target tokens (the intact model's top token at a typed
 * {@code [MASK]}, the original wordpiece at a sampled one), {@code accuracy} the share of positions
 * whose most probable token is the target, {@code kl} the mean {@code KL(intact || ablated)} in nats.
 * Indices are 0-based {@code [layer][head]}.
 *
 * <p>With a {@link TargetMetric} the "logprob" fields hold that metric instead (log-probability or
 * probability of a chosen target, or its difference from a contrast), and {@code metric} says which.
 *
 * @param layerLogprob per whole layer switched off; null (as the other layer arrays) when layers
 *     were not swept
 * @param metric what the logprob fields hold: {@code logprob} (the default measure or a target's),
 *     {@code prob}, {@code logit_diff} or {@code prob_diff} ({@link TargetMetric#column()})
 */
public record AblationResult(
    HeadMask.Mode mode,
    int inputs,
    int positions,
    double baselineLogprob,
    double baselineAccuracy,
    double[][] headLogprob,
    double[][] headAccuracy,
    double[][] headKl,
    double[] layerLogprob,
    double[] layerAccuracy,
    double[] layerKl,
    String metric) {

  /** The default measure's name: the targets' mean log-probability. */
  public static final String DEFAULT_METRIC = "logprob";

  /** A result of the default measure. */
  public AblationResult(HeadMask.Mode mode, int inputs, int positions, double baselineLogprob, double baselineAccuracy,
      double[][] headLogprob, double[][] headAccuracy, double[][] headKl, double[] layerLogprob,
      double[] layerAccuracy, double[] layerKl) {
    this(mode, inputs, positions, baselineLogprob, baselineAccuracy, headLogprob, headAccuracy, headKl, layerLogprob,
        layerAccuracy, layerKl, DEFAULT_METRIC);
  }

  public int layers() {
    return headLogprob.length;
  }

  public int heads() {
    return headLogprob[0].length;
  }

  public boolean hasLayers() {
    return layerLogprob != null;
  }

  /** Ablated minus intact: negative when the head helped the prediction. */
  public double deltaLogprob(int layer, int head) {
    return headLogprob[layer][head] - baselineLogprob;
  }

  public double deltaAccuracy(int layer, int head) {
    return headAccuracy[layer][head] - baselineAccuracy;
  }

  public double layerDeltaLogprob(int layer) {
    return layerLogprob[layer] - baselineLogprob;
  }

  public double layerDeltaAccuracy(int layer) {
    return layerAccuracy[layer] - baselineAccuracy;
  }

  /** {@code [layer][head]} of {@link #deltaLogprob}. */
  public double[][] deltaLogprob() {
    double[][] d = new double[layers()][heads()];
    for (int l = 0; l < layers(); l++) {
      for (int h = 0; h < heads(); h++) {
        d[l][h] = deltaLogprob(l, h);
      }
    }
    return d;
  }

  /** Heads whose removal raised the target's log-probability, most helpful removal first. */
  public List<Head> helpfulHeads() {
    List<Head> out = new ArrayList<>();
    for (Head h : Head.all(layers(), heads())) {
      if (deltaLogprob(h.layer(), h.head()) > 0) {
        out.add(h);
      }
    }
    out.sort(Comparator.comparingDouble((Head h) -> -deltaLogprob(h.layer(), h.head())));
    return out;
  }

  /** The mean over inputs: every input counts once, however many positions it has. */
  public static AblationResult mean(List<AblationResult> results) {
    if (results.isEmpty()) {
      throw new IllegalArgumentException("no results to average");
    }
    AblationResult first = results.get(0);
    int n = results.size();
    int l = first.layers();
    int h = first.heads();
    boolean layers = first.hasLayers();
    double[][] lp = new double[l][h];
    double[][] acc = new double[l][h];
    double[][] kl = new double[l][h];
    double[] llp = layers ? new double[l] : null;
    double[] lacc = layers ? new double[l] : null;
    double[] lkl = layers ? new double[l] : null;
    double blp = 0;
    double bacc = 0;
    int inputs = 0;
    int positions = 0;
    for (AblationResult r : results) {
      inputs += r.inputs;
      positions += r.positions;
      blp += r.baselineLogprob / n;
      bacc += r.baselineAccuracy / n;
      for (int i = 0; i < l; i++) {
        for (int j = 0; j < h; j++) {
          lp[i][j] += r.headLogprob[i][j] / n;
          acc[i][j] += r.headAccuracy[i][j] / n;
          kl[i][j] += r.headKl[i][j] / n;
        }
        if (layers) {
          llp[i] += r.layerLogprob[i] / n;
          lacc[i] += r.layerAccuracy[i] / n;
          lkl[i] += r.layerKl[i] / n;
        }
      }
    }
    return new AblationResult(first.mode, inputs, positions, blp, bacc, lp, acc, kl, llp, lacc, lkl, first.metric);
  }
}
