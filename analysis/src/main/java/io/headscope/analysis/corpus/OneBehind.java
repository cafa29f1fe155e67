package io.headscope.analysis.corpus;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs one task at a time on a second thread, one step behind its caller: the caller submits a batch's
 * bookkeeping and goes on to the model's next batch, then {@link #await}s it before submitting the next.
 * Tasks run in submission order, one after another, so whatever they add up is the same bits as in one
 * thread; a task's failure comes out of the next {@link #await} (or {@link #close}) as it was thrown.
 */
final class OneBehind implements AutoCloseable {
  private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "headscope-corpus-sums");
    t.setDaemon(true);
    return t;
  });
  private Future<?> pending;

  /** Waits for the task before; rethrows what it threw. */
  void await() {
    if (pending == null) {
      return;
    }
    Future<?> f = pending;
    pending = null;
    try {
      f.get();
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
      throw new java.util.concurrent.CancellationException("interrupted");
    }
  }

  /** Starts a task; the one before must have been awaited. */
  void submit(Runnable task) {
    if (pending != null) {
      throw new IllegalStateException("the task before was not awaited");
    }
    pending = thread.submit(task);
  }

  /** Waits for the last task, then stops the thread. */
  @Override
  public void close() {
    try {
      await();
    } finally {
      thread.shutdown();
    }
  }
}
