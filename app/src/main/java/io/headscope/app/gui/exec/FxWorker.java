package io.headscope.app.gui.exec;

import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javafx.application.Platform;
import javafx.concurrent.Task;

/**
 * Runs work as a JavaFX {@link Task} on one background thread. One thread, because a
 * {@code BertModel} serves one call at a time: loading, tracing and sweeps queue behind each other.
 */
public final class FxWorker implements Worker, AutoCloseable {
  private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "headscope-model");
    t.setDaemon(true);
    return t;
  });

  @Override
  public <T> Job submit(Work<T> work, Listener<T> listener) {
    Task<T> task = new Task<>() {
      @Override
      protected T call() throws Exception {
        return work.run(new Progress() {
          @Override
          public void update(String message, double fraction) {
            Platform.runLater(() -> listener.progress(message, fraction));
          }

          @Override
          public boolean isCancelled() {
            return Thread.currentThread().isInterrupted() || isCancelledTask();
          }
        });
      }

      private boolean isCancelledTask() {
        return isCancelled();
      }
    };
    task.setOnSucceeded(e -> listener.done(task.getValue()));
    task.setOnFailed(e -> {
      if (task.getException() instanceof CancellationException) {
        listener.cancelled();
      } else {
        listener.failed(task.getException());
      }
    });
    task.setOnCancelled(e -> listener.cancelled());
    Job job = () -> task.cancel(false);
    listener.started(job);
    thread.execute(task);
    return job;
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
