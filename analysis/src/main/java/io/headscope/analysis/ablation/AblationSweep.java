package io.headscope.analysis.ablation;

import io.headscope.model.BertModel;
import io.headscope.model.core.HeadMask;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunResult;
import io.headscope.model.store.ProgressListener;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
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

  /** Inputs swept together by default (across inputs as well as heads; see {@link #AblationSweep(BertModel, int)}). */
  public static final int DEFAULT_BATCH = 8;

  /**
   * A group holds at most this many tokens (inputs times the longest), so that a layer's batch of 13
   * variants stays near 3,300 token rows: eight inputs of 16-32 tokens, two of 128, one of 512 alone.
   */
  static final int GROUP_TOKENS = 256;

  private final BertModel model;
  private final int batch;

  public AblationSweep(BertModel model) {
    this(model, DEFAULT_BATCH);
  }

  /**
   * @param batch at most this many inputs share each layer's batch of variants, inputs of the same
   *     length together. Only where the engine is batch-invariant ({@link BertModel#batchInvariant}),
   *     so an input's numbers, and every CSV byte, are the same whatever the batch and the shard; else
   *     one input at a time.
   */
  public AblationSweep(BertModel model, int batch) {
    if (batch < 1) {
      throw new IllegalArgumentException("batch " + batch);
    }
    this.model = model;
    this.batch = batch;
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
   * @param progress hears after every layer of every group of inputs
   * @param cancelled polled between layers; when it turns true the sweep stops with a
   *     {@link CancellationException} and nothing is returned
   */
  public AblationResult run(List<Encoding> inputs, Options options, ProgressListener progress,
      BooleanSupplier cancelled) {
    return run(inputs, options, progress, cancelled, null);
  }

  /**
   * {@link #run(List, Options, ProgressListener, BooleanSupplier)}, telling {@code partial} after each layer;
   * with a listener the inputs are swept one at a time.
   */
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
      // a causal model's target is the token after the text: its prediction at the last token
      MlmProbe probe = options.target() != null && !model.config().family().masked()
          ? MlmProbe.atLastToken(e) : MlmProbe.of(model, e, options.seed());
      if (options.target() != null && probe.kind() != MlmProbe.Kind.MASKS) {
        String mask = model.tokenizer().vocabToken(model.tokenizer().maskId()).strip();
        throw new HeadScopeException("A target token is measured at " + mask + ": give inputs with a " + mask + ".");
      }
      probes.add(probe);
    }
    int n = probes.size();
    boolean together = partial == null && batch > 1 && n > 1 && model.batchInvariant();
    List<List<Integer>> groups = together ? groups(probes) : singles(n);
    AblationResult[] out = new AblationResult[n];
    int done = 0;
    for (List<Integer> g : groups) {
      List<MlmProbe> members = g.stream().map(probes::get).toList();
      int first = done;
      String what = g.size() == 1 ? "Input " + (first + 1) + " of " + n
          : "Inputs " + (first + 1) + "-" + (first + g.size()) + " of " + n;
      AblationResult[] r = group(members, options, cancelled, partial, (layersDone, layers) ->
          progress.progress(what, (first + g.size() * layersDone / (double) layers) / n));
      for (int k = 0; k < g.size(); k++) {
        out[g.get(k)] = r[k];
      }
      done += g.size();
    }
    return List.of(out);
  }

  /**
   * Input indices in groups of one length and one number of measured positions (by those, then
   * position), each within the batch and token limits. An input then meets the same shapes of product
   * alone or in its group, so its numbers are the same bits ({@link BertModel#batchInvariant}).
   * Padding is the one thing batch invariance does not cover: a softmax over a padded row sums its
   * (zero) padding too, in another order, and moves the last bit. And the last layer computes only the
   * measured rows, whose count decides whether torch multiplies tiny attention matrices with MKL or
   * with its own loop.
   */
  private List<List<Integer>> groups(List<MlmProbe> probes) {
    Integer[] order = new Integer[probes.size()];
    Arrays.setAll(order, i -> i);
    Comparator<Integer> byShape = Comparator.comparingInt((Integer i) -> probes.get(i).input().length())
        .thenComparingInt(i -> probes.get(i).positions().length);
    Arrays.sort(order, byShape.thenComparing(i -> i));
    List<List<Integer>> groups = new ArrayList<>();
    List<Integer> current = new ArrayList<>();
    for (int i : order) {
      int t = probes.get(i).input().length();
      if (!current.isEmpty() && (byShape.compare(current.get(0), i) != 0 || current.size() == batch
          || (current.size() + 1) * t > GROUP_TOKENS)) {
        groups.add(current);
        current = new ArrayList<>();
      }
      current.add(i);
    }
    groups.add(current);
    return groups;
  }

  private static List<List<Integer>> singles(int n) {
    List<List<Integer>> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(List.of(i));
    }
    return out;
  }

  /** Hears a group's progress: layers swept so far of all. */
  private interface LayerProgress {
    void layers(int done, int of);
  }

  /**
   * The sweep of a group of inputs: one intact pass of the group, then for each layer one batch of
   * every variant of every input (rows variant-major, {@link LayerVariants}), each row compared with
   * its own input's intact distributions.
   */
  private AblationResult[] group(List<MlmProbe> probes, Options o, BooleanSupplier cancelled, Partial partial,
      LayerProgress progress) {
    int layers = model.config().numHiddenLayers();
    int heads = model.config().numAttentionHeads();
    int n = probes.size();
    List<Encoding> inputs = probes.stream().map(MlmProbe::input).toList();
    // the intact pass, keeping every layer's input and the distributions at the measured positions
    LayerVariants sweep = LayerVariants.start(model, inputs,
        Readouts.none().withLogProbs(probes.stream().map(MlmProbe::positions).toList()));
    TargetMetric metric = o.target();
    Scores[] s = new Scores[n];
    List<Readouts.Comparison> comparisons = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      MlmProbe probe = probes.get(i);
      float[][] logp = sweep.intact().logProbs()[i]; // [position][vocab]
      long[] targets = metric != null ? filled(probe.positions().length, metric.target())
          : probe.kind() == MlmProbe.Kind.MASKS ? argMax(logp) : probe.originals();
      long[] contrasts = metric != null && metric.hasContrast() ? filled(targets.length, metric.contrast()) : null;
      s[i] = new Scores(probe, targets, intactScores(logp, targets, contrasts, metric), layers, heads, o.layers());
      comparisons.add(new Readouts.Comparison(probe.positions(), targets, logp, contrasts));
    }
    Readouts compare = Readouts.none().withComparisons(comparisons); // row v * n + i: input i's comparison

    for (int l = 0; l < layers; l++) {
      if (cancelled.getAsBoolean()) {
        throw new CancellationException("ablation sweep cancelled");
      }
      RunResult.TargetScores[] r = sweep.layer(l, LayerVariants.singleOff(layers, heads, l, o.layers()), o.mode(),
          compare).comparison();
      for (int i = 0; i < n; i++) {
        for (int h = 0; h < heads; h++) {
          s[i].head(l, h, means(r[h * n + i], s[i].targets, metric));
        }
        if (o.layers()) {
          s[i].layer(l, means(r[heads * n + i], s[i].targets, metric));
        }
      }
      if (partial != null && n == 1) {
        partial.layerDone(s[0].result(o, metric, true), l + 1, layers);
      }
      progress.layers(l + 1, layers);
    }
    AblationResult[] out = new AblationResult[n];
    for (int i = 0; i < n; i++) {
      out[i] = s[i].result(o, metric, false);
    }
    return out;
  }

  /** One input's scores as its sweep fills them; not measured yet is NaN, so a partial result cannot read as "no effect". */
  private static final class Scores {
    final MlmProbe probe;
    final long[] targets;
    final double[] base;
    final double[][] lp;
    final double[][] acc;
    final double[][] kl;
    final double[] llp;
    final double[] lacc;
    final double[] lkl;

    Scores(MlmProbe probe, long[] targets, double[] base, int layers, int heads, boolean wholeLayers) {
      this.probe = probe;
      this.targets = targets;
      this.base = base;
      lp = nan(layers, heads);
      acc = nan(layers, heads);
      kl = nan(layers, heads);
      llp = wholeLayers ? nan(1, layers)[0] : null;
      lacc = wholeLayers ? nan(1, layers)[0] : null;
      lkl = wholeLayers ? nan(1, layers)[0] : null;
    }

    void head(int l, int h, double[] m) {
      lp[l][h] = m[0];
      acc[l][h] = m[1];
      kl[l][h] = m[2];
    }

    void layer(int l, double[] m) {
      llp[l] = m[0];
      lacc[l] = m[1];
      lkl[l] = m[2];
    }

    AblationResult result(Options o, TargetMetric metric, boolean copied) {
      String column = metric == null ? AblationResult.DEFAULT_METRIC : metric.column();
      return copied
          ? new AblationResult(o.mode(), 1, probe.positions().length, base[0], base[1], copy(lp), copy(acc), copy(kl),
              copy(llp), copy(lacc), copy(lkl), column)
          : new AblationResult(o.mode(), 1, probe.positions().length, base[0], base[1], lp, acc, kl, llp, lacc, lkl,
              column);
    }

    private static double[][] nan(int rows, int cols) {
      double[][] a = new double[rows][cols];
      for (double[] row : a) {
        Arrays.fill(row, Double.NaN);
      }
      return a;
    }
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
