package io.headscope.model.ablation;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import io.headscope.model.BertModel;
import io.headscope.model.HeadMask;
import io.headscope.model.engine.BertEncoder;
import io.headscope.model.engine.HeadMasking;
import io.headscope.model.engine.Hooks;
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
   */
  public record Options(HeadMask.Mode mode, boolean layers, long seed) {
    public static final Options DEFAULT = new Options(HeadMask.Mode.ZERO, false, 0);
  }

  private final BertModel model;

  public AblationSweep(BertModel model) {
    this.model = model;
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
    if (inputs.isEmpty()) {
      throw new IllegalArgumentException("no inputs");
    }
    List<MlmProbe> probes = new ArrayList<>();
    for (Encoding e : inputs) {
      probes.add(MlmProbe.of(model, e, options.seed()));
    }
    List<AblationResult> results = new ArrayList<>();
    for (int i = 0; i < probes.size(); i++) {
      results.add(one(probes.get(i), options, i, probes.size(), progress, cancelled));
    }
    return AblationResult.mean(results);
  }

  private AblationResult one(MlmProbe probe, Options o, int index, int count, ProgressListener progress,
      BooleanSupplier cancelled) {
    BertEncoder enc = model.engine();
    int layers = model.config().numHiddenLayers();
    int heads = model.config().numAttentionHeads();
    int variants = heads + (o.layers() ? 1 : 0);
    double[][] lp = new double[layers][heads];
    double[][] acc = new double[layers][heads];
    double[][] kl = new double[layers][heads];
    double[] llp = o.layers() ? new double[layers] : null;
    double[] lacc = o.layers() ? new double[layers] : null;
    double[] lkl = o.layers() ? new double[layers] : null;
    double[] base;
    try (NDManager scope = model.manager().newSubManager()) {
      BertModel.Batch batch = BertModel.Batch.of(scope, List.of(probe.input()));
      int t = batch.width();
      NDArray scoreMask = enc.scoreMask(batch.real());
      NDArray[] below = new NDArray[layers]; // below[l]: the intact input to layer l, (1, T, d)
      NDArray x = enc.embed(batch.ids(), batch.segments(), Hooks.none());
      for (int l = 0; l < layers; l++) {
        below[l] = x;
        x = enc.layer(l, x, scoreMask, Hooks.none());
      }
      NDArray logp = MlmScores.logProbs(enc, x, probe.positions()); // (M, V)
      long[] targets = probe.kind() == MlmProbe.Kind.MASKS ? logp.argMax(-1).toLongArray() : probe.originals();
      base = MlmScores.measure(logp, logp, targets)[0];

      for (int l = 0; l < layers; l++) {
        if (cancelled.getAsBoolean()) {
          throw new CancellationException("ablation sweep cancelled");
        }
        float[][][] m = new float[variants][layers][heads];
        for (float[][] variant : m) {
          for (float[] row : variant) {
            Arrays.fill(row, 1f);
          }
        }
        for (int h = 0; h < heads; h++) {
          m[h][l][h] = 0f; // variant h: head h of layer l off
        }
        if (o.layers()) {
          Arrays.fill(m[heads][l], 0f); // the last variant: the whole layer off
        }
        try (NDManager step = scope.newSubManager()) {
          NDArray xs = below[l].repeat(0, variants); // (V, T, d)
          xs.attach(step);
          NDArray real = step.ones(new Shape(variants, t), DataType.INT64);
          Hooks hooks = Hooks.none();
          HeadMasking.attach(hooks, m, o.mode(), real, step);
          NDArray out = enc.encodeLayerByLayer(xs, enc.scoreMask(real), l, hooks, k -> new NDArray[0]); // (V, T, d)
          double[][] r = MlmScores.measure(MlmScores.logProbs(enc, out, probe.positions()), logp, targets);
          for (int h = 0; h < heads; h++) {
            lp[l][h] = r[h][0];
            acc[l][h] = r[h][1];
            kl[l][h] = r[h][2];
          }
          if (o.layers()) {
            llp[l] = r[heads][0];
            lacc[l] = r[heads][1];
            lkl[l] = r[heads][2];
          }
        }
        progress.progress("Input " + (index + 1) + " of " + count,
            (index * layers + l + 1) / (double) (count * layers));
      }
    }
    return new AblationResult(o.mode(), 1, probe.positions().length, base[0], base[1], lp, acc, kl, llp, lacc, lkl);
  }
}
