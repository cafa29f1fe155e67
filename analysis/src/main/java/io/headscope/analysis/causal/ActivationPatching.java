package io.headscope.analysis.causal;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.Intervention;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.engine.RunResult;
import io.headscope.model.store.ProgressListener;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;

/**
 * Exact activation patching (Wang et al. 2022; Meng et al. 2022; Heimersheim and Nanda 2024): the base
 * run with one cell's value at a site replaced by the source run's, for every layer and cell.
 *
 * <p>Batched like the ablation sweep: patching layer {@code l} cannot change the layers below it, so the
 * base run is made once, keeping every layer's input, and the cells of layer {@code l} run from there to
 * the top as one batch, row {@code c} holding the base value with cell {@code c} taken from the source.
 */
public final class ActivationPatching {
  private final BertModel model;

  public ActivationPatching(BertModel model) {
    this.model = model;
  }

  public PatchResult run(PatchInputs in, TargetMetric metric, PatchSite site, PatchDirection direction) {
    return run(in, metric, site, direction, ProgressListener.NONE, () -> false);
  }

  /**
   * @param progress hears after every layer
   * @param cancelled polled between layers; true stops with a {@link CancellationException}
   */
  public PatchResult run(PatchInputs in, TargetMetric metric, PatchSite site, PatchDirection direction,
      ProgressListener progress, BooleanSupplier cancelled) {
    return run(in, PatchMetric.of(metric), site, direction, progress, cancelled);
  }

  /** As {@link #run(PatchInputs, TargetMetric, PatchSite, PatchDirection)}, for any metric (KL too). */
  public PatchResult run(PatchInputs in, PatchMetric metric, PatchSite site, PatchDirection direction) {
    return run(in, metric, site, direction, ProgressListener.NONE, () -> false);
  }

  public PatchResult run(PatchInputs in, PatchMetric metric, PatchSite site, PatchDirection direction,
      ProgressListener progress, BooleanSupplier cancelled) {
    return run(in, metric, site, direction, progress, cancelled, 0);
  }

  public List<PatchResult> residualStream(PatchInputs in, TargetMetric metric, PatchDirection direction,
      ProgressListener progress, BooleanSupplier cancelled) {
    return residualStream(in, PatchMetric.of(metric), direction, progress, cancelled);
  }

  /**
   * The three residual streams ({@code --by resid}): {@code resid_pre}, {@code resid_mid}, {@code resid_post}.
   * Only {@code resid_pre} at every layer and {@code resid_post} at the top are run, from one pair of plain runs:
   * <ul>
   *   <li>a layer's output below the top is the next layer's input, the same value, so {@code resid_post} of
   *       layer {@code l} is {@code resid_pre} of layer {@code l + 1};
   *   <li>{@code resid_mid} of layer {@code l} is {@code resid_post} of the same layer: what follows it in the
   *       layer (the feed-forward, its residual sum and layer norm) works on each token alone, so the clean value
   *       put back at one token makes that token's layer output the clean one and leaves every other token's
   *       as it was, which is patching {@code resid_post} at that token.
   * </ul>
   * A third of the cells' runs instead of all three streams' (only rounding differs from running each alone).
   */
  public List<PatchResult> residualStream(PatchInputs in, PatchMetric metric, PatchDirection direction,
      ProgressListener progress, BooleanSupplier cancelled) {
    int layers = model.config().numHiddenLayers();
    PatchRuns runs = PatchRuns.of(model, in, metric, List.of(PatchSite.RESID_PRE, PatchSite.RESID_POST), direction);
    PatchResult pre = run(in, metric, runs, PatchSite.RESID_PRE, direction, progress, cancelled, 0);
    PatchResult top = run(in, metric, runs, PatchSite.RESID_POST, direction, progress, cancelled, layers - 1);
    double[][] post = top.patched();
    for (int l = 0; l + 1 < layers; l++) {
      post[l] = pre.patched()[l + 1].clone();
    }
    double[][] mid = new double[layers][];
    for (int l = 0; l < layers; l++) {
      mid[l] = post[l].clone();
    }
    return List.of(pre, stream(PatchSite.RESID_MID, top, mid), stream(PatchSite.RESID_POST, top, post));
  }

  private static PatchResult stream(PatchSite site, PatchResult like, double[][] patched) {
    return new PatchResult(site, like.direction(), like.metric(), like.clean(), like.corrupted(), like.cleanTokens(),
        like.corruptedTokens(), patched, null);
  }

  /** The layers from {@code first} up; those below stay empty for the caller to fill. */
  private PatchResult run(PatchInputs in, PatchMetric metric, PatchSite site, PatchDirection direction,
      ProgressListener progress, BooleanSupplier cancelled, int first) {
    return run(in, metric, PatchRuns.of(model, in, metric, List.of(site), direction), site, direction, progress,
        cancelled, first);
  }

  private PatchResult run(PatchInputs in, PatchMetric metric, PatchRuns runs, PatchSite site, PatchDirection direction,
      ProgressListener progress, BooleanSupplier cancelled, int first) {
    if (runs.cleanMetric() == runs.corruptedMetric()) {
      // the recovered share divides by their difference
      throw new HeadScopeException("The clean and the corrupted input give the same " + metric.column() + " ("
          + runs.cleanMetric() + "): there is nothing to recover; change the cue in the corrupted input.");
    }
    int layers = model.config().numHiddenLayers();
    int[] positions = in.positions();
    long[] targets = new long[positions.length];
    // KL reads no target: any id serves the comparison's target slot
    Arrays.fill(targets, metric.target() == null ? 0 : metric.target().target());
    long[] contrasts = null;
    if (!metric.kl() && metric.target().hasContrast()) {
      contrasts = new long[positions.length];
      Arrays.fill(contrasts, metric.target().contrast());
    }
    // every row is compared with the clean run's distribution: KL(clean || row) is the KL metric; the
    // target metrics keep only the target's and contrast's log-probabilities
    Readouts compare = Readouts.none().withComparison(new Readouts.Comparison(positions, targets, runs.cleanLogProbs(),
        contrasts));
    double[][] patched = new double[layers][];
    for (int l = first; l < layers; l++) {
      if (cancelled.getAsBoolean()) {
        throw new CancellationException("patching cancelled");
      }
      HookPoint point = HookPoint.of(site.kind(), l);
      Activation base = runs.baseValue(point);
      Activation source = runs.sourceValue(point);
      int cells = CellSlice.count(site, base.shape());
      patched[l] = new double[cells];
      // a cell whose source value is the base's own, bit for bit (in BERT's first layer every token but the
      // changed ones, in a causal model every token before them), leaves the base run as it is: its metric is
      // the base run's, and no row is run for it
      int[] live = IntStream.range(0, cells).filter(c -> !CellSlice.of(site, base.shape(), c).same(source.data(),
          base.data())).toArray();
      Arrays.fill(patched[l], runs.baseMetric());
      if (live.length == 0) {
        progress.progress(site.label() + " layer " + (l + 1) + " of " + layers, (l + 1) / (double) layers);
        continue;
      }
      Activation rows = variants(site, base, source, live);
      RunRequest run = RunRequest.of(Collections.nCopies(live.length, runs.base()));
      // a patched layer input, or a layer output below the top (the next layer's input), is where a run
      // starts: no intervention, so no copy at the point and the last layer computes only the read rows
      if (site == PatchSite.RESID_PRE) {
        run = run.startingAt(l, rows);
      } else if (site == PatchSite.RESID_POST && l + 1 < layers) {
        run = run.startingAt(l + 1, rows);
      } else {
        run = run.startingAt(l, runs.baseValue(HookPoint.residPre(l)).repeatRows(live.length))
            .intervene(new Intervention.Patch(point, rows));
      }
      RunResult r = model.run(run.read(compare));
      for (int i = 0; i < live.length; i++) {
        patched[l][live[i]] = PatchRuns.value(metric, r.comparison()[i]);
      }
      progress.progress(site.label() + " layer " + (l + 1) + " of " + layers, (l + 1) / (double) layers);
    }
    return new PatchResult(site, direction, metric.column(), runs.cleanMetric(), runs.corruptedMetric(),
        in.clean().tokens(), in.corrupted().tokens(), patched, null);
  }

  /** One copy of the base value (one input's) per cell of {@code cells}, copy {@code i} with cell {@code cells[i]} from the source. */
  static Activation variants(PatchSite site, Activation base, Activation source, int[] cells) {
    int rowSize = base.data().length;
    float[] data = new float[rowSize * cells.length];
    for (int i = 0; i < cells.length; i++) {
      System.arraycopy(base.data(), 0, data, i * rowSize, rowSize);
      CellSlice.of(site, base.shape(), cells[i]).copy(source.data(), data, i, rowSize);
    }
    int[] shape = base.shape();
    shape[0] = cells.length;
    return new Activation(data, shape);
  }
}
