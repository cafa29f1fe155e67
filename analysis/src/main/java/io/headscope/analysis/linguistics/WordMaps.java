package io.headscope.analysis.linguistics;

import io.headscope.analysis.corpus.Shard;
import io.headscope.model.BertModel;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.engine.RunResult;
import io.headscope.model.tokenizer.Encoding;
import io.headscope.model.tokenizer.WordEncoding;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Runs inputs given as words through the model in batches and hands over each input's word-level
 * maps {@code [layer][head][word][word]} ({@link WordAttention}); only the attention patterns are
 * captured. Inputs are sorted by length so a batch pads little, and batches are cut at a budget of
 * attention cells.
 */
public final class WordMaps {
  /** Inputs per forward pass at most. */
  public static final int BATCH = 16;
  static final long CELL_BUDGET = 16L * 128 * 128;

  /** Progress after each batch: inputs done out of all. */
  @FunctionalInterface
  public interface Progress {
    void update(int done, int total);

    Progress NONE = (done, total) -> {};
  }

  /** One input's word-level maps, with the index the caller gave it. */
  public record Result(int index, WordEncoding input, float[][][][] maps) {}

  private WordMaps() {}

  public static void run(BertModel model, List<WordEncoding> inputs, Consumer<Result> out, Progress progress,
      BooleanSupplier cancelled) {
    run(model, inputs, Shard.ALL, out, progress, cancelled);
  }

  /**
   * The same for one shard: shard K of N runs the K-th, (K+N)-th, ... batch of the plan a single run
   * makes, so that each input is padded and batched exactly as in the single run (its maps can differ
   * in their last bits otherwise) and the shards' counts add up to the single run's.
   */
  public static void run(BertModel model, List<WordEncoding> inputs, Shard shard, Consumer<Result> out,
      Progress progress, BooleanSupplier cancelled) {
    int layers = model.config().numHiddenLayers();
    int heads = model.config().numAttentionHeads();
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < inputs.size(); i++) {
      order.add(i);
    }
    order.sort(Comparator.comparingInt(i -> inputs.get(i).encoding().length()));
    List<int[]> batches = new ArrayList<>(); // [start, end) in order, this shard's
    int total = 0;
    for (int start = 0, index = 0; start < order.size(); index++) {
      int end = start + 1;
      while (end < order.size() && end - start < BATCH) {
        long width = inputs.get(order.get(end)).encoding().length();
        if ((end - start + 1) * width * width > CELL_BUDGET) {
          break;
        }
        end++;
      }
      if (shard.takes(index)) {
        batches.add(new int[] {start, end});
        total += end - start;
      }
      start = end;
    }
    int done = 0;
    progress.update(0, total);
    for (int[] se : batches) {
      int start = se[0];
      int end = se[1];
      if (cancelled.getAsBoolean()) {
        throw new CancellationException("cancelled after " + done + " of " + total);
      }
      List<Encoding> batch = new ArrayList<>();
      for (int k = start; k < end; k++) {
        batch.add(inputs.get(order.get(k)).encoding());
      }
      RunResult r = model.run(RunRequest.of(batch).capture(Capture.points(HookPoint.Kind.ATTN_PATTERN)));
      for (int k = start; k < end; k++) {
        int b = k - start;
        WordEncoding we = inputs.get(order.get(k));
        int n = we.encoding().length();
        float[][][][] maps = new float[layers][heads][][];
        for (int l = 0; l < layers; l++) {
          Activation pattern = r.cache().get(HookPoint.pattern(l));
          for (int h = 0; h < heads; h++) {
            maps[l][h] = WordAttention.toWords(pattern.matrix(n, n, b, h), we.wordOfToken(), we.words());
          }
        }
        out.accept(new Result(order.get(k), we, maps));
      }
      done += end - start;
      progress.update(done, total);
    }
  }
}
