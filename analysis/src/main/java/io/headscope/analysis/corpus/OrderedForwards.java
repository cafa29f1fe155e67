package io.headscope.analysis.corpus;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * Runs the forward passes of successive batches on several threads at once and hands their results to
 * the caller in submission order, on the caller's thread.
 *
 * <p>With one worker per core, each running libtorch on its own thread only ({@link
 * BertModel#runOnThisThreadOnly}), two cores got 17% more through the classification corpus than one
 * forward pass at a time with two intra-op threads: small products parallelise poorly inside, and
 * perfectly across batches. The caller's sums see the batches in the order they were submitted, one at
 * a time, so they are the same bits as with one worker. At most {@code workers} batches are in flight,
 * within a budget of attention cells; a batch too big for its share (inputs of 128 tokens and more) runs
 * on the caller's thread with libtorch's own threads, as everything did before.
 */
final class OrderedForwards implements AutoCloseable {
  /** One per core, at most four: more batches in flight hold more maps in memory. */
  static final int DEFAULT_WORKERS = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));

  private record InFlight(Future<List<AttentionTrace>> traces, int inputs) {}

  private final int workers;
  private final long cellBudget;
  /** The last batch ran on the caller's thread: hand it over before running another (its maps are big). */
  private boolean ranHere;
  private final ExecutorService pool;
  private final Deque<InFlight> queue = new ArrayDeque<>();

  /**
   * @param cellBudget attention cells (inputs x T^2) that the batches on the workers may hold together: a
   *     batch with more than its share runs on the caller's thread with libtorch's own threads instead
   *     (two batches of 480-token inputs at once would hold 270 MB of maps and take a corpus command to
   *     the edge of 2 GB; such a batch is big enough to keep both threads busy by itself)
   */
  OrderedForwards(int workers, long cellBudget) {
    this.workers = workers;
    this.cellBudget = cellBudget;
    this.pool = workers == 1 ? null : Executors.newFixedThreadPool(workers, r -> {
      Thread t = new Thread(() -> {
        BertModel.runOnThisThreadOnly();
        r.run();
      }, "headscope-forward");
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Starts a batch's forward pass ({@code inputs} inputs, {@code cells} attention cells) on a worker, or
   * runs it now on this thread: with one worker, or when it is over its share of the cell budget.
   */
  void submit(Callable<List<AttentionTrace>> forward, int inputs, long cells) {
    ranHere = pool == null || cells * workers > cellBudget;
    if (ranHere) {
      java.util.concurrent.FutureTask<List<AttentionTrace>> now = new java.util.concurrent.FutureTask<>(forward);
      now.run();
      queue.add(new InFlight(now, inputs));
    } else {
      queue.add(new InFlight(pool.submit(forward), inputs));
    }
  }

  /**
   * Whether as many batches are in flight as there are workers, or the last one ran here: take one
   * before submitting more.
   */
  boolean full() {
    return !queue.isEmpty() && (queue.size() >= workers || ranHere);
  }

  boolean isEmpty() {
    return queue.isEmpty();
  }

  /** Waits for the oldest batch, hands its traces to {@code then}, and returns its number of inputs. */
  int next(Consumer<List<AttentionTrace>> then) {
    InFlight f = queue.poll();
    if (f == null) {
      throw new IllegalStateException("no batch in flight");
    }
    try {
      then.accept(f.traces().get());
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CancellationException("interrupted");
    }
    return f.inputs();
  }

  /** Drops what is still in flight (after a failure or a cancel) and stops the workers. */
  @Override
  public void close() {
    for (InFlight f : queue) {
      f.traces().cancel(false);
    }
    queue.clear();
    if (pool != null) {
      pool.shutdown();
      try {
        // a pass already running finishes (libtorch cannot be interrupted); the model may be closed next
        pool.awaitTermination(10, java.util.concurrent.TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
