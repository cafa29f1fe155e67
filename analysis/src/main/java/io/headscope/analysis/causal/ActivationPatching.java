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
   * A layer's output below the top is the next layer's input, the same value, so {@code resid_post} of layer
   * {@code l} takes {@code resid_pre}'s cells of layer {@code l + 1} and only the top layer's are run: a third
   * less work.
   */
  public List<PatchResult> residualStream(PatchInputs in, PatchMetric metric, PatchDirection direction,
      ProgressListener progress, BooleanSupplier cancelled) {
    int layers = model.config().numHiddenLayers();
    PatchResult pre = run(in, metric, PatchSite.RESID_PRE, direction, progress, cancelled, 0);
    PatchResult mid = run(in, metric, PatchSite.RESID_MID, direction, progress, cancelled, 0);
    PatchResult top = run(in, metric, PatchSite.RESID_POST, direction, progress, cancelled, layers - 1);
    double[][] post = top.patched();
    for (int l = 0; l + 1 < layers; l++) {
      post[l] = pre.patched()[l + 1].clone();
    }
    return List.of(pre, mid, new PatchResult(PatchSite.RESID_POST, direction, top.metric(), top.clean(),
        top.corrupted(), top.cleanTokens(), top.corruptedTokens(), post, null));
  }

  /** The layers from {@code first} up; those below stay empty for the caller to fill. */
  private PatchResult run(PatchInputs in, PatchMetric metric, PatchSite site, PatchDirection direction,
      ProgressListener progress, BooleanSupplier cancelled, int first) {
    PatchRuns runs = PatchRuns.of(model, in, metric, site, direction);
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
      Activation rows = variants(site, base, source, cells);
      RunRequest run = RunRequest.of(Collections.nCopies(cells, runs.base()));
      // a patched layer input, or a layer output below the top (the next layer's input), is where a run
      // starts: no intervention, so no copy at the point and the last layer computes only the read rows
      if (site == PatchSite.RESID_PRE) {
        run = run.startingAt(l, rows);
      } else if (site == PatchSite.RESID_POST && l + 1 < layers) {
        run = run.startingAt(l + 1, rows);
      } else {
        run = run.startingAt(l, runs.baseValue(HookPoint.residPre(l)).repeatRows(cells))
            .intervene(new Intervention.Patch(point, rows));
      }
      RunResult r = model.run(run.read(compare));
      for (int c = 0; c < cells; c++) {
        patched[l][c] = PatchRuns.value(metric, r.comparison()[c]);
      }
      progress.progress(site.label() + " layer " + (l + 1) + " of " + layers, (l + 1) / (double) layers);
    }
    return new PatchResult(site, direction, metric.column(), runs.cleanMetric(), runs.corruptedMetric(),
        in.clean().tokens(), in.corrupted().tokens(), patched, null);
  }

  /** {@code cells} copies of the base value (one input's), copy {@code c} with cell {@code c} from the source. */
  static Activation variants(PatchSite site, Activation base, Activation source, int cells) {
    int rowSize = base.data().length;
    float[] data = new float[rowSize * cells];
    for (int c = 0; c < cells; c++) {
      System.arraycopy(base.data(), 0, data, c * rowSize, rowSize);
      CellSlice.of(site, base.shape(), c).copy(source.data(), data, c, rowSize);
    }
    int[] shape = base.shape();
    shape[0] = cells;
    return new Activation(data, shape);
  }
}
