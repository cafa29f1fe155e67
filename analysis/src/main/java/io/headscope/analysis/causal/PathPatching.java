package io.headscope.analysis.causal;

import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.Intervention;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.engine.RunResult;
import io.headscope.model.store.ProgressListener;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;

/**
 * Path patching (Wang et al. 2022; Goldowsky-Dill et al. 2023): how much of the behaviour a sender head
 * passes to the receivers along the direct paths only. Noising, from the clean run:
 * <ol type="a">
 *   <li>run the clean input with the sender's output {@code z W_O} taken from the corrupted run and every
 *       other head's output frozen at its clean value, the feed-forward blocks and LayerNorms recomputed;
 *   <li>run the clean input again with each receiver's q, k or v input computed from (a)'s residual stream at
 *       the receiver's layer (the receiver {@code logits}: (a)'s output is read directly).
 * </ol>
 * Denoising swaps the inputs. Every head of the layers before the first receiver is a sender; several
 * receivers are patched together in (b).
 *
 * <p>Batched as activation patching: the pair of plain runs is made once. Into the logits, (a) runs every
 * sender as one row of one batch on the read tokens alone (see {@code intoLogits}: with every attention output
 * fixed, nothing mixes tokens). Into heads, (a) runs them from that layer's input, the sender's output patched at its {@code attn.hook_result} and every
 * later layer's attention output ({@code hook_attn_out}, the sum of its frozen heads and the bias) set to the
 * base run's; (b) runs every sender as one row from the first receiver's layer, with each receiver head's block
 * of {@code attn.hook_q|k|v} replaced by the one (a) computed and the other heads' blocks as (b) computes them
 * (a receiver in an earlier layer changes what the later layers read).
 */
public final class PathPatching {
  /** Rows per batch of step (b): (b) runs one row per sender from the receivers' layer up. */
  private static final int ROWS = 48;

  private final BertModel model;

  public PathPatching(BertModel model) {
    this.model = model;
  }

  public PathPatchResult run(PatchInputs in, PatchMetric metric, List<PathReceiver> receivers, PatchDirection d) {
    return run(in, metric, receivers, d, ProgressListener.NONE, () -> false);
  }

  public PathPatchResult run(PatchInputs in, PatchMetric metric, List<PathReceiver> receivers, PatchDirection d,
      ProgressListener progress, BooleanSupplier cancelled) {
    if (receivers.isEmpty()) {
      throw new IllegalArgumentException("no receivers");
    }
    int layers = model.config().numHiddenLayers();
    int heads = model.config().numAttentionHeads();
    boolean logits = receivers.get(0).logits();
    int first = logits ? layers : receivers.stream().mapToInt(PathReceiver::layer).min().orElseThrow();
    int last = logits ? layers - 1 : receivers.stream().mapToInt(PathReceiver::layer).max().orElseThrow();
    Set<HookPoint.Kind> kinds = new LinkedHashSet<>(List.of(HookPoint.Kind.ATTN_RESULT, HookPoint.Kind.ATTN_OUT));
    for (PathReceiver r : receivers) {
      if (!r.logits()) {
        kinds.add(r.kind());
      }
    }
    PatchRuns runs = PatchRuns.ofPoints(model, in, metric, kinds, d);
    if (runs.cleanMetric() == runs.corruptedMetric()) {
      throw new HeadScopeException("The clean and the corrupted input give the same " + metric.column() + " ("
          + runs.cleanMetric() + "): there is nothing to recover; change the cue in the corrupted input.");
    }
    Readouts compare = comparison(in, metric, runs);
    double[][] patched = new double[first][heads];
    // per sender (layer, head), per receiver: the receiver head's (T, dh) block as step (a) computed it
    float[][][][] carried = logits ? null : new float[first][heads][receivers.size()][];
    int[] all = new int[heads];
    Arrays.setAll(all, i -> i);
    if (logits) {
      RunResult r = model.run(intoLogits(runs, in, compare, heads, layers));
      for (int l = 0; l < layers; l++) {
        for (int h = 0; h < heads; h++) {
          patched[l][h] = PatchRuns.value(metric, r.comparison()[l * heads + h]);
        }
      }
    }
    for (int l = 0; l < (logits ? 0 : first); l++) {
      if (cancelled.getAsBoolean()) {
        throw new CancellationException("path patching cancelled");
      }
      HookPoint result = HookPoint.of(HookPoint.Kind.ATTN_RESULT, l);
      // row h: the base layer's head outputs with head h's from the source
      Activation senders = ActivationPatching.variants(PatchSite.HEAD, runs.baseValue(result), runs.sourceValue(result),
          all);
      RunRequest a = RunRequest.of(Collections.nCopies(heads, runs.base()))
          .startingAt(l, runs.baseValue(HookPoint.residPre(l)).repeatRows(heads))
          .intervene(new Intervention.Patch(result, senders));
      for (int k = l + 1; k <= last; k++) {
        HookPoint out = HookPoint.of(HookPoint.Kind.ATTN_OUT, k);
        a = a.intervene(new Intervention.Patch(out, runs.baseValue(out).repeatRows(heads))); // every head frozen
      }
      {
        Set<Integer> at = new LinkedHashSet<>();
        receivers.forEach(x -> at.add(x.layer()));
        Capture keep = new Capture(kinds(receivers), Set.of(), at, Capture.Stage.AFTER_INTERVENTIONS);
        RunResult r = model.run(a.capture(keep).stoppingBefore(last + 1));
        for (int i = 0; i < receivers.size(); i++) {
          PathReceiver x = receivers.get(i);
          Activation v = r.cache().get(HookPoint.of(x.kind(), x.layer())); // (heads, H, T, dh)
          for (int h = 0; h < heads; h++) {
            carried[l][h][i] = headBlock(v, h, x.head());
          }
        }
      }
      progress.progress("path patching: senders of layer " + (l + 1) + " of " + first, (l + 1) / (double) (first + 1));
    }
    if (!logits) {
      stepB(runs, compare, metric, receivers, first, heads, carried, patched, cancelled);
    }
    progress.progress("path patching", 1.0);
    return new PathPatchResult(d, metric.column(), runs.cleanMetric(), runs.corruptedMetric(), receivers, patched);
  }

  /**
   * Step (a) into the logits for every sender at once, on the read tokens alone. From the sender's layer up
   * every attention output is fixed (the sender's layer: the base's with the sender's output swapped; above it:
   * the base's), and what is left of a layer (the residual sums, LayerNorms and feed-forward block) works on each
   * token alone; so the read tokens' streams depend on nothing but their own rows. Below the sender's layer a
   * row is the base run, which the same holds for once its attention outputs are set to the base's. So one run
   * of L H rows of M tokens from the read tokens' embeddings, each layer's {@code hook_attn_out} set (row
   * {@code l H + h}: swapped at layer l, the base's elsewhere), gives every sender; the attention a layer computes
   * among the M rows is replaced, so it does not matter.
   */
  private RunRequest intoLogits(PatchRuns runs, PatchInputs in, Readouts compare, int heads, int layers) {
    int[] read = in.positions();
    int m = read.length;
    int n = layers * heads;
    RunRequest a = RunRequest.of(Collections.nCopies(n, narrowed(runs.base(), read)))
        .startingAt(0, rows(runs.baseValue(HookPoint.residPre(0)), read).repeatRows(n));
    for (int l = 0; l < layers; l++) {
      Activation result = runs.baseValue(HookPoint.of(HookPoint.Kind.ATTN_RESULT, l)); // (1, T, H, d)
      Activation source = runs.sourceValue(HookPoint.of(HookPoint.Kind.ATTN_RESULT, l));
      Activation out = rows(runs.baseValue(HookPoint.of(HookPoint.Kind.ATTN_OUT, l)), read); // (1, M, d)
      int d = out.shape()[2];
      float[] values = out.repeatRows(n).data(); // (n, M, d): the base's
      for (int h = 0; h < heads; h++) {
        int row = l * heads + h;
        for (int i = 0; i < m; i++) {
          int at = (read[i] * heads + h) * d; // (T, H, d)
          for (int e = 0; e < d; e++) {
            // the layer's sum of heads and bias, with this head's term from the source run
            values[(row * m + i) * d + e] += source.data()[at + e] - result.data()[at + e];
          }
        }
      }
      a = a.intervene(new Intervention.Patch(HookPoint.of(HookPoint.Kind.ATTN_OUT, l),
          new Activation(values, new int[] {n, m, d})));
    }
    int[] all = new int[m];
    Arrays.setAll(all, i -> i);
    Readouts.Comparison c = compare.comparisons().get(0);
    return a.read(Readouts.none().withComparison(new Readouts.Comparison(all, c.targets(), c.reference(),
        c.contrasts())));
  }

  /** The tokens at {@code read} of an input, as an input of their own (only its length and padding are used). */
  private static Encoding narrowed(Encoding e, int[] read) {
    List<String> tokens = new ArrayList<>();
    long[] ids = new long[read.length];
    long[] segments = new long[read.length];
    for (int i = 0; i < read.length; i++) {
      tokens.add(e.tokens().get(read[i]));
      ids[i] = e.ids()[read[i]];
      segments[i] = e.segments()[read[i]];
    }
    return new Encoding(tokens, ids, segments, -1, 0);
  }

  /** The rows {@code read} of a (1, T, d) value: (1, M, d). */
  private static Activation rows(Activation v, int[] read) {
    int d = v.shape()[2];
    float[] out = new float[read.length * d];
    for (int i = 0; i < read.length; i++) {
      System.arraycopy(v.data(), read[i] * d, out, i * d, d);
    }
    return new Activation(out, new int[] {1, read.length, d});
  }

  /** (b): every sender one row, run from the first receiver's layer with the receivers' blocks from (a). */
  private void stepB(PatchRuns runs, Readouts compare, PatchMetric metric, List<PathReceiver> receivers, int first,
      int heads, float[][][][] carried, double[][] patched, BooleanSupplier cancelled) {
    int n = first * heads;
    // the receivers grouped by the point they are read at
    Map<HookPoint, List<Integer>> byPoint = new LinkedHashMap<>();
    for (int i = 0; i < receivers.size(); i++) {
      PathReceiver x = receivers.get(i);
      byPoint.computeIfAbsent(HookPoint.of(x.kind(), x.layer()), p -> new ArrayList<>()).add(i);
    }
    for (int from = 0; from < n; from += ROWS) {
      if (cancelled.getAsBoolean()) {
        throw new CancellationException("path patching cancelled");
      }
      int rows = Math.min(ROWS, n - from);
      RunRequest b = RunRequest.of(Collections.nCopies(rows, runs.base()))
          .startingAt(first, runs.baseValue(HookPoint.residPre(first)).repeatRows(rows));
      int at = from;
      for (Map.Entry<HookPoint, List<Integer>> e : byPoint.entrySet()) {
        // only the receivers' blocks change: the other heads' inputs at that point are computed by this run
        // (a receiver in an earlier layer changes them)
        b = b.intervene(new Intervention.Edit(e.getKey(), v -> {
          float[] data = v.data().clone();
          int[] shape = v.shape(); // (rows, H, T, dh)
          int block = shape[2] * shape[3];
          int rowSize = shape[1] * block;
          for (int row = 0; row < shape[0]; row++) {
            int s = at + row;
            for (int i : e.getValue()) {
              System.arraycopy(carried[s / heads][s % heads][i], 0, data, row * rowSize + receivers.get(i).head() * block,
                  block);
            }
          }
          return new Activation(data, shape);
        }));
      }
      RunResult r = model.run(b.read(compare));
      for (int row = 0; row < rows; row++) {
        int s = from + row;
        patched[s / heads][s % heads] = PatchRuns.value(metric, r.comparison()[row]);
      }
    }
  }

  private static Set<HookPoint.Kind> kinds(List<PathReceiver> receivers) {
    Set<HookPoint.Kind> k = new LinkedHashSet<>();
    receivers.forEach(x -> k.add(x.kind()));
    return k;
  }

  /** Row {@code row}'s head {@code head} block of a (B, H, T, dh) value. */
  private static float[] headBlock(Activation v, int row, int head) {
    int[] s = v.shape();
    int block = s[2] * s[3];
    int at = (row * s[1] + head) * block;
    return Arrays.copyOfRange(v.data(), at, at + block);
  }

  /** Every row compared with the clean run, as activation patching reads it. */
  static Readouts comparison(PatchInputs in, PatchMetric metric, PatchRuns runs) {
    int[] positions = in.positions();
    long[] targets = new long[positions.length];
    Arrays.fill(targets, metric.target() == null ? 0 : metric.target().target());
    long[] contrasts = null;
    if (!metric.kl() && metric.target().hasContrast()) {
      contrasts = new long[positions.length];
      Arrays.fill(contrasts, metric.target().contrast());
    }
    return Readouts.none().withComparison(new Readouts.Comparison(positions, targets, runs.cleanLogProbs(), contrasts));
  }
}
