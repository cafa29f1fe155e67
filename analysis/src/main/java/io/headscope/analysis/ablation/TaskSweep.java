package io.headscope.analysis.ablation;

import io.headscope.model.BertModel;
import io.headscope.model.core.HeadMask;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.Readouts;
import io.headscope.model.store.ProgressListener;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;

/**
 * The task-level sweep (Kovaleva et al. 2019, section 5; issue 19): every head switched off alone (and,
 * if asked, every whole layer), measured by a sequence classifier's accuracy, macro-F1 and gold-class
 * log-likelihood on a labelled corpus ({@link TaskResult}).
 *
 * <p>The same fast, exact sweep as {@link AblationSweep} ({@link LayerVariants}), batched across inputs
 * too: a group of inputs of similar length runs its intact pass once, and then for each layer all
 * variants of all inputs of the group as one batch.
 */
public final class TaskSweep {
  /**
   * @param mode how a head is switched off
   * @param layers also switch off each whole layer
   * @param batch inputs per group (a layer's run holds {@code batch x variants} rows)
   */
  public record Options(HeadMask.Mode mode, boolean layers, int batch) {
    public Options {
      if (batch < 1) {
        throw new IllegalArgumentException("batch " + batch);
      }
    }
  }

  private final BertModel model;

  public TaskSweep(BertModel model) {
    if (!model.hasClassifier()) {
      throw new HeadScopeException(model.unreadClassifier().map(why -> why + ", but task accuracy needs the classifier.")
          .orElse(model.name() + " has no sequence-classification head, so task accuracy cannot "
          + "be measured with it; give a fine-tuned classifier (./headscope finetune makes one)."));
    }
    this.model = model;
  }

  /** The sweep's scores over all inputs. */
  public TaskResult run(List<Encoding> inputs, int[] gold, Options o, ProgressListener progress,
      BooleanSupplier cancelled) {
    return TaskResult.of(runEach(inputs, gold, o, progress, cancelled), model.classLabels().size(), o.mode());
  }

  /**
   * Each input's outcome, in input order (what a shard keeps). An empty list gives an empty list.
   *
   * @param gold each input's gold class (an index into {@link BertModel#classLabels()})
   * @param progress hears after every layer of every group
   * @param cancelled polled between layers; when it turns true the sweep stops with a
   *     {@link CancellationException}
   */
  public List<TaskOutcome> runEach(List<Encoding> inputs, int[] gold, Options o, ProgressListener progress,
      BooleanSupplier cancelled) {
    if (gold.length != inputs.size()) {
      throw new IllegalArgumentException(gold.length + " gold labels for " + inputs.size() + " inputs");
    }
    int classes = model.classLabels().size();
    for (int g : gold) {
      if (g < 0 || g >= classes) {
        throw new IllegalArgumentException("gold class " + g + " of " + classes);
      }
    }
    int n = inputs.size();
    // groups of one length: no padding, and where the engine is batch-invariant every input gets the
    // bits it gets alone, so shards merge into exactly one run's file at any --batch
    Integer[] order = new Integer[n];
    Arrays.setAll(order, i -> i);
    Arrays.sort(order, Comparator.comparingInt((Integer i) -> inputs.get(i).ids().length).thenComparing(i -> i));
    int perGroup = model.batchInvariant() ? o.batch() : 1;
    TaskOutcome[] out = new TaskOutcome[n];
    for (int start = 0, end; start < n; start = end) {
      int length = inputs.get(order[start]).ids().length;
      end = start + 1;
      while (end < n && end - start < perGroup && inputs.get(order[end]).ids().length == length) {
        end++;
      }
      List<Encoding> group = new ArrayList<>();
      int[] groupGold = new int[end - start];
      for (int k = start; k < end; k++) {
        group.add(inputs.get(order[k]));
        groupGold[k - start] = gold[order[k]];
      }
      int done = start;
      int last = end;
      TaskOutcome[] g = group(group, groupGold, o, cancelled,
          share -> progress.progress("Inputs " + (done + 1) + "-" + last + " of " + n,
              (done + share * (last - done)) / n));
      for (int k = start; k < end; k++) {
        out[order[k]] = g[k - start];
      }
    }
    return List.of(out);
  }

  private TaskOutcome[] group(List<Encoding> group, int[] gold, Options o, BooleanSupplier cancelled,
      java.util.function.DoubleConsumer share) {
    int layers = model.config().numHiddenLayers();
    int heads = model.config().numAttentionHeads();
    int n = group.size();
    Readouts classes = Readouts.none().withClassifier();
    LayerVariants sweep = LayerVariants.start(model, group, classes);
    float[][] intact = sweep.intact().classProbabilities(); // [input][class]
    int[][][] pred = new int[n][layers][heads];
    double[][][] ll = new double[n][layers][heads];
    int[][] layerPred = o.layers() ? new int[n][layers] : null;
    double[][] layerLl = o.layers() ? new double[n][layers] : null;
    for (int l = 0; l < layers; l++) {
      if (cancelled.getAsBoolean()) {
        throw new CancellationException("task sweep cancelled");
      }
      float[][] p = sweep.layer(l, LayerVariants.singleOff(layers, heads, l, o.layers()), o.mode(), classes)
          .classProbabilities(); // row v * n + i
      for (int i = 0; i < n; i++) {
        for (int h = 0; h < heads; h++) {
          pred[i][l][h] = argMax(p[h * n + i]);
          ll[i][l][h] = logProb(p[h * n + i], gold[i]);
        }
        if (o.layers()) {
          layerPred[i][l] = argMax(p[heads * n + i]);
          layerLl[i][l] = logProb(p[heads * n + i], gold[i]);
        }
      }
      share.accept((l + 1) / (double) layers);
    }
    TaskOutcome[] out = new TaskOutcome[n];
    for (int i = 0; i < n; i++) {
      out[i] = new TaskOutcome(gold[i], argMax(intact[i]), logProb(intact[i], gold[i]), pred[i], ll[i],
          o.layers() ? layerPred[i] : null, o.layers() ? layerLl[i] : null);
    }
    return out;
  }

  /** The most probable class (the first of equals, as torch's argmax). */
  public static int argMax(float[] p) {
    int best = 0;
    for (int c = 1; c < p.length; c++) {
      if (p[c] > p[best]) {
        best = c;
      }
    }
    return best;
  }

  /**
   * The natural log of a float32 probability, in double; a probability that underflowed to 0 counts as
   * the smallest float32 (log about -103.3) so that one such input cannot make a mean infinite.
   */
  public static double logProb(float[] p, int c) {
    return Math.log(Math.max(p[c], Float.MIN_VALUE));
  }
}
