package io.headscope.model.ablation;

import io.headscope.model.BertModel;
import io.headscope.model.HeadMask;
import io.headscope.model.HeadScopeException;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunResult;
import io.headscope.model.store.ProgressListener;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;

/**
 * Switches every head off alone (and, if asked, every whole layer) and measures the masked-LM
 * quality each time (see {@link MlmProbe} and {@link AblationResult}).
 *
 * <p>Fast but exact: switching a head of layer {@code l} off cannot change layers below {@code l},
 * so the intact pass is run once and its input to every layer kept; the {@code H} (or {@code H + 1})
 * variants of layer {@code l} then run from there to the top as one batch, one mask row per variant.
 * For bert-base that is 12 x 78 = 936 layer passes in 12 batches instead of 145 x 12 = 1740 layer
 * passes one input at a time.
 */
public final class AblationSweep {
  /**
   * @param mode how a head is switched off
   * @param layers also switch off each whole layer
   * @param seed the seed of the 15% sample for inputs without {@code [MASK]}
   * @param target a chosen target (and contrast) to follow at the {@code [MASK]} positions instead of the
   *     intact model's top token; null for the default measure
   */
  public record Options(HeadMask.Mode mode, boolean layers, long seed, TargetMetric target) {
    public static final Options DEFAULT = new Options(HeadMask.Mode.ZERO, false, 0);

    /** The default measure: the intact model's top token at each [MASK], else a seeded 15% sample. */
    public Options(HeadMask.Mode mode, boolean layers, long seed) {
      this(mode, layers, seed, null);
    }

    /** The same options following a chosen target (and contrast) at the input's [MASK] positions. */
    public Options following(TargetMetric metric) {
      return new Options(mode, layers, seed, metric);
    }
  }

  private final BertModel model;

  public AblationSweep(BertModel model) {
    this.model = model;
  }

  /**
   * Hears the sweep of one input as it goes: after each layer, the result so far (the layers not yet
   * swept hold NaN), so a window can draw it and keep it when the sweep is cancelled.
   */
  public interface Partial {
    void layerDone(AblationResult soFar, int layersDone, int layers);
  }

  public AblationResult run(Encoding input, Options options) {
    return run(List.of(input), options, ProgressListener.NONE, () -> false);
  }

  /**
   * The sweep of every input, averaged over inputs.
   *
   * @param progress hears after every layer of every input
   * @param cancelled polled between layers; when it turns true the sweep stops with a
   *     {@link CancellationException} and nothing is returned
   */
  public AblationResult run(List<Encoding> inputs, Options options, ProgressListener progress,
      BooleanSupplier cancelled) {
    return run(inputs, options, progress, cancelled, null);
  }

  /** {@link #run(List, Options, ProgressListener, BooleanSupplier)}, telling {@code partial} after each layer. */
  public AblationResult run(List<Encoding> inputs, Options options, ProgressListener progress,
      BooleanSupplier cancelled, Partial partial) {
    return AblationResult.mean(runEach(inputs, options, progress, cancelled, partial));
  }

  /**
   * Each input's own sweep, in input order: what a shard of a corpus keeps, so that the shards' results
   * put back in corpus order give {@link AblationResult#mean} exactly what one run gives. An empty list
   * gives an empty result (a shard may hold no input).
   */
  public List<AblationResult> runEach(List<Encoding> inputs, Options options, ProgressListener progress,
      BooleanSupplier cancelled) {
    return inputs.isEmpty() ? List.of() : runEach(inputs, options, progress, cancelled, null);
  }

  private List<AblationResult> runEach(List<Encoding> inputs, Options options, ProgressListener progress,
      BooleanSupplier cancelled, Partial partial) {
    if (inputs.isEmpty()) {
      throw new IllegalArgumentException("no inputs");
    }
    List<MlmProbe> probes = new ArrayList<>();
    for (Encoding e : inputs) {
      MlmProbe probe = MlmProbe.of(model, e, options.seed());
      if (options.target() != null && probe.kind() != MlmProbe.Kind.MASKS) {
        throw new HeadScopeException("A target token is measured at [MASK]: give inputs with a [MASK].");
      }
      probes.add(probe);
    }
    List<AblationResult> results = new ArrayList<>();
    for (int i = 0; i < probes.size(); i++) {
      results.add(one(probes.get(i), options, i, probes.size(), progress, cancelled, partial));
    }
    return results;
  }

  private AblationResult one(MlmProbe probe, Options o, int index, int count, ProgressListener progress,
      BooleanSupplier cancelled, Partial partial) {
    int layers = model.config().numHiddenLayers();
    int heads = model.config().numAttentionHeads();
    double[][] lp = new double[layers][heads];
    double[][] acc = new double[layers][heads];
    double[][] kl = new double[layers][heads];
    double[] llp = o.layers() ? new double[layers] : null;
    double[] lacc = o.layers() ? new double[layers] : null;
    double[] lkl = o.layers() ? new double[layers] : null;
    // not measured yet: NaN, so a partial result cannot be read as "no effect"
    for (double[][] a : new double[][][] {lp, acc, kl}) {
      for (double[] row : a) {
        Arrays.fill(row, Double.NaN);
      }
    }
    for (double[] a : new double[][] {llp, lacc, lkl}) {
      if (a != null) {
        Arrays.fill(a, Double.NaN);
      }
    }

    // the intact pass, keeping every layer's input and the distributions at the measured positions
    LayerVariants sweep = LayerVariants.start(model, List.of(probe.input()),
        Readouts.none().withLogProbs(probe.positions()));
    float[][] logp = sweep.intact().logProbs()[0]; // [position][vocab]
    TargetMetric metric = o.target();
    long[] targets = metric != null ? filled(probe.positions().length, metric.target())
        : probe.kind() == MlmProbe.Kind.MASKS ? argMax(logp) : probe.originals();
    long[] contrasts = metric != null && metric.hasContrast() ? filled(targets.length, metric.contrast()) : null;
    double[] base = intactScores(logp, targets, contrasts, metric);
    Readouts compare = Readouts.none()
        .withComparison(new Readouts.Comparison(probe.positions(), targets, logp, contrasts));

    for (int l = 0; l < layers; l++) {
      if (cancelled.getAsBoolean()) {
        throw new CancellationException("ablation sweep cancelled");
      }
      RunResult.TargetScores[] r = sweep.layer(l, LayerVariants.singleOff(layers, heads, l, o.layers()), o.mode(),
          compare).comparison();
      for (int h = 0; h < heads; h++) {
        double[] s = means(r[h], targets, metric);
        lp[l][h] = s[0];
        acc[l][h] = s[1];
        kl[l][h] = s[2];
      }
      if (o.layers()) {
        double[] s = means(r[heads], targets, metric);
        llp[l] = s[0];
        lacc[l] = s[1];
        lkl[l] = s[2];
      }
      if (partial != null) {
        partial.layerDone(new AblationResult(o.mode(), 1, probe.positions().length, base[0], base[1], copy(lp),
            copy(acc), copy(kl), copy(llp), copy(lacc), copy(lkl),
            metric == null ? AblationResult.DEFAULT_METRIC : metric.column()), l + 1, layers);
      }
      progress.progress("Input " + (index + 1) + " of " + count,
          (index * layers + l + 1) / (double) (count * layers));
    }
    return new AblationResult(o.mode(), 1, probe.positions().length, base[0], base[1], lp, acc, kl, llp, lacc, lkl,
        metric == null ? AblationResult.DEFAULT_METRIC : metric.column());
  }

  private static double[][] copy(double[][] a) {
    double[][] out = new double[a.length][];
    for (int i = 0; i < a.length; i++) {
      out[i] = a[i].clone();
    }
    return out;
  }

  private static double[] copy(double[] a) {
    return a == null ? null : a.clone();
  }

  private static long[] filled(int n, long id) {
    long[] out = new long[n];
    Arrays.fill(out, id);
    return out;
  }

  /**
   * {@code {mean metric (the targets' log-probability by default), top-1 accuracy, mean KL(intact ||
   * variant)}} over the positions.
   */
  private static double[] means(RunResult.TargetScores r, long[] targets, TargetMetric metric) {
    int m = targets.length;
    double[] out = new double[3];
    for (int i = 0; i < m; i++) {
      out[0] += metric == null ? r.targetLogProbs()[i] / m
          : metric.value(r.targetLogProbs()[i], metric.hasContrast() ? r.contrastLogProbs()[i] : 0) / m;
      out[1] += (r.top()[i] == targets[i] ? 1.0 : 0.0) / m;
      out[2] += Math.max(0, r.kl()[i]) / m;
    }
    return out;
  }

  /** The intact model's own scores: the targets' mean log-probability and its top-1 accuracy. */
  private static double[] intactScores(float[][] logp, long[] targets, long[] contrasts, TargetMetric metric) {
    int m = targets.length;
    long[] top = argMax(logp);
    double[] out = new double[2];
    for (int i = 0; i < m; i++) {
      out[0] += metric == null ? logp[i][(int) targets[i]] / m
          : metric.value(logp[i][(int) targets[i]], contrasts == null ? 0 : logp[i][(int) contrasts[i]]) / m;
      out[1] += (top[i] == targets[i] ? 1.0 : 0.0) / m;
    }
    return out;
  }

  /** The most probable token at each position of {@code [position][vocab]} log-probabilities. */
  public static long[] topTokens(float[][] logp) {
    return argMax(logp);
  }

  /** The most probable token at each position (the first of equals, as torch's argmax). */
  static long[] argMax(float[][] logp) {
    long[] out = new long[logp.length];
    for (int i = 0; i < logp.length; i++) {
      int best = 0;
      for (int v = 1; v < logp[i].length; v++) {
        if (logp[i][v] > logp[i][best]) {
          best = v;
        }
      }
      out[i] = best;
    }
    return out;
  }
}
