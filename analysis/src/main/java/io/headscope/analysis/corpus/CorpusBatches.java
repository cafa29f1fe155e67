package io.headscope.analysis.corpus;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;

/**
 * Streams corpus inputs through the model in batched forward passes and hands each batch's traces
 * to the caller, who keeps only running sums: the one loop every corpus analysis shares (the
 * classification of {@link CorpusAnalysis}, the head distances).
 *
 * <p>Inputs are read one chunk at a time, tokenized, sorted by length (a batch then pads little) and
 * run in batches; a batch's traces are dropped once the caller has seen them, so memory holds one
 * chunk of encodings and one batch of maps, never the file.
 */
public final class CorpusBatches {
  /**
   * Inputs tokenized and sorted by length together (about 70 bytes a token while they wait); a corpus
   * no larger than this runs exactly as one piece.
   */
  static final int CHUNK_INPUTS = 16_384;
  /** ... or as many as hold this many tokens, so that long inputs do not fill the memory. */
  static final long CHUNK_TOKENS = 1_000_000;

  /**
   * A batch's maps take inputs x heads x layers x T^2 floats, natively and again as Java arrays, so the
   * batch is cut at a budget of attention cells as well as at the batch size: 16 inputs of 128 tokens
   * fit; inputs of 400 tokens go in batches of 1-2 instead of needing many gigabytes.
   */
  static final long CELL_BUDGET = 16L * 128 * 128;

  /**
   * What a run saw besides the traces.
   *
   * @param analysed inputs run through the model
   * @param problemCount inputs skipped here (unusable after text cleaning, or too long)
   * @param problems the first {@link CorpusLines#KEPT_PROBLEMS} of them
   */
  public record Outcome(int analysed, int problemCount, List<CorpusProblem> problems) {
    public Outcome {
      problems = List.copyOf(problems);
    }
  }

  private final BertModel model;
  private final int batchSize;
  private final boolean truncateLong;
  private final int workers;

  /**
   * @param truncateLong cut an input longer than the model to its positions instead of skipping it
   *     (for one typed input, where the caller warns)
   */
  public CorpusBatches(BertModel model, int batchSize, boolean truncateLong) {
    this(model, batchSize, truncateLong, OrderedForwards.DEFAULT_WORKERS);
  }

  /**
   * @param workers forward passes run at once, each on one thread of its own ({@link OrderedForwards});
   *     the output is the same bits for any number
   */
  public CorpusBatches(BertModel model, int batchSize, boolean truncateLong, int workers) {
    if (batchSize < 1) {
      throw new IllegalArgumentException("batch size " + batchSize);
    }
    if (workers < 1) {
      throw new IllegalArgumentException("workers " + workers);
    }
    this.model = model;
    this.batchSize = batchSize;
    this.truncateLong = truncateLong;
    this.workers = workers;
  }

  /**
   * Runs every input {@code source} gives (null ends it).
   *
   * @param name the corpus's name, for the error when nothing can be analysed
   * @param analysedInput hears each input that will be run (not the skipped ones)
   * @param fractionRead the share of the file read so far, -1 when unknown; progress hears it times the
   *     share of the inputs read so far that are done
   * @param knownTotal the number of inputs when known, else -1
   * @param cancelled polled between batches; when it turns true the run stops with a {@link
   *     CancellationException}
   * @param batch hears each batch's traces, all heads on, in the order of the sorted chunk
   * @throws HeadScopeException if no input fits the model
   */
  public Outcome run(String name, Supplier<CorpusInput> source, Consumer<CorpusInput> analysedInput,
      DoubleSupplier fractionRead, int knownTotal, CorpusAnalysis.Progress progress, BooleanSupplier cancelled,
      Consumer<List<AttentionTrace>> batch) {
    return run(name, source, analysedInput, fractionRead, knownTotal, progress, cancelled, Shard.ALL, batch);
  }

  /**
   * The same for one shard: shard K of N runs the K-th, (K+N)-th, ... batch of the single run's plan
   * (the same inputs in the same batches, padded alike: an input's maps can differ in their last bits
   * with its batch mates, and the shards must add up to the single run's bits); it reports only the
   * skipped lines it owns ({@link Shard#takesLine}). A shard may find no input at all.
   */
  public Outcome run(String name, Supplier<CorpusInput> source, Consumer<CorpusInput> analysedInput,
      DoubleSupplier fractionRead, int knownTotal, CorpusAnalysis.Progress progress, BooleanSupplier cancelled,
      Shard shard, Consumer<List<AttentionTrace>> batch) {
    long batches = 0; // planned so far, over all chunks
    List<CorpusProblem> problems = new ArrayList<>();
    int problemCount = 0;
    int analysed = 0;
    int accepted = 0;
    CorpusProblem firstProblem = null;
    progress.update(0, knownTotal);
    try (OrderedForwards forwards = new OrderedForwards(workers, CELL_BUDGET)) {
      for (boolean more = true; more; ) {
        // one chunk: tokenize, sort by length (a batch then pads little), run in batches
        List<Encoding> chunk = new ArrayList<>();
        long tokens = 0;
        while (chunk.size() < CHUNK_INPUTS && tokens < CHUNK_TOKENS) {
          CorpusInput in = source.get();
          if (in == null) {
            more = false;
            break;
          }
          CorpusProblem problem;
          Encoding e = null;
          try {
            e = model.encode(in.a(), in.b());
            problem = e.wasTruncated() && !truncateLong ? new CorpusProblem(in.line(), "longer than the model's "
                + e.length() + " positions (" + e.droppedWordpieces() + " wordpieces too many); skipped") : null;
          } catch (HeadScopeException unusable) {
            // e.g. only zero-width or control characters: nothing left after BERT's text cleaning
            problem = new CorpusProblem(in.line(), unusable.getMessage() + " Skipped.");
          }
          if (problem != null) {
            if (!shard.takesLine(in.line())) {
              continue; // another shard reports it
            }
            problemCount++;
            firstProblem = firstProblem == null ? problem : firstProblem;
            if (problems.size() < CorpusLines.KEPT_PROBLEMS) {
              problems.add(problem);
            }
            continue;
          }
          chunk.add(e);
          accepted++;
          analysedInput.accept(in);
          tokens += e.length();
        }
        chunk.sort(Comparator.comparingInt(Encoding::length));
        for (int start = 0; start < chunk.size(); ) {
          if (cancelled.getAsBoolean()) {
            throw new CancellationException("cancelled after " + analysed + " inputs");
          }
          int end = batchEnd(chunk, start);
          if (!shard.takes(batches++)) {
            start = end; // another shard's batch
            continue;
          }
          List<Encoding> slice = chunk.subList(start, end);
          long width = slice.get(slice.size() - 1).length(); // the longest: sorted by length
          forwards.submit(() -> model.maps(slice), slice.size(), slice.size() * width * width); // maps and norms
          start = end;
          // the caller sees the batches in order on this thread, however many run at once
          while (forwards.full()) {
            analysed += forwards.next(batch);
            reportProgress(progress, fractionRead, analysed, accepted, knownTotal);
          }
        }
      }
      while (!forwards.isEmpty()) {
        analysed += forwards.next(batch);
        reportProgress(progress, fractionRead, analysed, accepted, knownTotal);
      }
    }
    if (analysed == 0 && shard.isAll()) {
      throw new HeadScopeException("No input of " + name + " can be analysed"
          + (firstProblem == null ? "." : ": " + firstProblem
              + (problemCount > 1 ? " (and " + (problemCount - 1) + " more lines)." : "")));
    }
    return new Outcome(analysed, problemCount, problems);
  }

  private static void reportProgress(CorpusAnalysis.Progress progress, DoubleSupplier fractionRead, int analysed,
      int accepted, int knownTotal) {
    progress.update(analysed, knownTotal);
    // the share of the file read times the share of what was read that is done: a small file is
    // read whole before the first batch, and its progress should not show 100% from then on
    double read = fractionRead.getAsDouble();
    progress.read(analysed, read < 0 ? read : read * analysed / accepted);
  }

  /** The end (exclusive) of the batch starting at {@code start}; inputs are sorted by length. */
  private int batchEnd(List<Encoding> encoded, int start) {
    int end = start + 1; // at least one input, however long
    while (end < encoded.size() && end - start < batchSize) {
      long width = encoded.get(end).length(); // the longest so far, as they are sorted
      if ((end - start + 1) * width * width > CELL_BUDGET) {
        break;
      }
      end++;
    }
    return end;
  }
}
