package io.headscope.app.gui.exec;

import java.util.function.Consumer;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyDoubleWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;

/**
 * One long job of a screen (a sweep, a corpus run, an export) on the {@link Worker}: whether it runs,
 * its progress, its status line, Cancel, and where its error goes. One job at a time: starting while
 * one runs is ignored. State changes on the UI thread only (the worker's promise).
 */
public final class BackgroundJob {

  /** What the screen says when the job ends; the result itself is the screen's to keep. */
  public interface Outcome<T> {
    /** @return the status line after success */
    String done(T result);

    /** @return the status line after a failure (the error also goes to the error handler) */
    String failed(Throwable error);

    /** @return the status line after Cancel */
    String cancelled();
  }

  private final Worker worker;
  private final Consumer<Throwable> errors;
  private final ReadOnlyBooleanWrapper running = new ReadOnlyBooleanWrapper();
  private final ReadOnlyDoubleWrapper progress = new ReadOnlyDoubleWrapper();
  private final ReadOnlyStringWrapper status;
  private Worker.Job job;
  /** Set by Cancel; the work sees it at its next check even before the worker handed out the job. */
  private volatile boolean cancelRequested;

  /**
   * @param errors hears failures (the app shows them in a dialog)
   * @param idleStatus the status line before the first run
   */
  public BackgroundJob(Worker worker, Consumer<Throwable> errors, String idleStatus) {
    this.worker = worker;
    this.errors = errors;
    this.status = new ReadOnlyStringWrapper(idleStatus);
    this.idleStatus = idleStatus;
  }

  private final String idleStatus;

  /**
   * Back to before the first run: the idle status line and no progress (a new model: the old run's
   * "done", its error or its summary says nothing about this one). Call after {@link #cancel()}.
   */
  public void reset() {
    if (!running.get()) {
      progress.set(0);
    }
    status.set(idleStatus);
  }

  public ReadOnlyBooleanProperty runningProperty() {
    return running.getReadOnlyProperty();
  }

  /** 0..1 while running, -1 when the length is unknown; 1 after success, 0 after cancel or failure. */
  public ReadOnlyDoubleProperty progressProperty() {
    return progress.getReadOnlyProperty();
  }

  public ReadOnlyStringProperty statusProperty() {
    return status.getReadOnlyProperty();
  }

  public boolean isRunning() {
    return running.get();
  }

  /** A status line outside a run (e.g. why it cannot start). */
  public void say(String message) {
    status.set(message);
  }

  /**
   * Starts the work unless a job is running.
   *
   * @param startStatus the status line at once
   * @param messages whether the work's progress messages replace the status line while it runs
   * @return whether it started
   */
  public <T> boolean start(String startStatus, double startProgress, boolean messages, Worker.Work<T> work,
      Outcome<T> outcome) {
    return start(startStatus, startProgress, messages, work, outcome, () -> { });
  }

  /**
   * As {@link #start(String, double, boolean, Worker.Work, Outcome)}; {@code onProgress} runs on the UI
   * thread after each progress report (a screen draws partial results there).
   */
  public <T> boolean start(String startStatus, double startProgress, boolean messages, Worker.Work<T> work,
      Outcome<T> outcome, Runnable onProgress) {
    return run(startStatus, startProgress, messages, work, outcome::done, outcome::failed, outcome::cancelled,
        onProgress);
  }

  /** The one place a job starts: the status of each ending comes from the three functions. */
  private <T> boolean run(String startStatus, double startProgress, boolean messages, Worker.Work<T> work,
      java.util.function.Function<T, String> done, java.util.function.Function<Throwable, String> failed,
      java.util.function.Supplier<String> cancelled, Runnable onProgress) {
    if (running.get()) {
      return false;
    }
    cancelRequested = false;
    running.set(true);
    progress.set(startProgress);
    status.set(startStatus);
    worker.submit(p -> work.run(new Worker.Progress() {
      @Override
      public void update(String message, double fraction) {
        p.update(message, fraction);
      }

      @Override
      public boolean isCancelled() {
        return cancelRequested || p.isCancelled();
      }
    }), new Worker.Listener<T>() {
      @Override
      public void started(Worker.Job j) {
        job = j;
      }

      @Override
      public void progress(String message, double fraction) {
        if (running.get()) {
          progress.set(fraction);
          if (messages) {
            status.set(message);
          }
          onProgress.run();
        }
      }

      @Override
      public void done(T result) {
        finish(1, done.apply(result));
      }

      @Override
      public void failed(Throwable error) {
        finish(0, failed.apply(error));
        errors.accept(error);
      }

      @Override
      public void cancelled() {
        finish(0, cancelled.get());
      }
    });
    return true;
  }

  /**
   * A job stated fluently (JabRef's BackgroundTask): what it computes, then what each ending says.
   * Nothing runs before {@link Task#start()}.
   *
   * @param startStatus the status line at once
   */
  public <T> Task<T> task(String startStatus, Worker.Work<T> work) {
    return new Task<>(startStatus, work);
  }

  /**
   * Cancels the running job and then runs {@code reset} whenever one of the inputs changes (the model,
   * the input text): a result of the old input is never shown beside the new one.
   */
  public void cancelWhenChanged(Runnable reset, javafx.beans.Observable... inputs) {
    for (javafx.beans.Observable in : inputs) {
      in.addListener(o -> {
        cancel();
        reset.run();
      });
    }
  }

  /** One job's statement: its work and the status line of each ending; {@link #start()} submits it. */
  public final class Task<T> {
    private final String startStatus;
    private final Worker.Work<T> work;
    private double startProgress = -1;
    private boolean messages;
    private Runnable onProgress = () -> { };
    private java.util.function.Function<T, String> done = r -> "";
    private java.util.function.Function<Throwable, String> failed = e -> "";
    private java.util.function.Supplier<String> cancelled = () -> "Cancelled; nothing changed.";

    private Task(String startStatus, Worker.Work<T> work) {
      this.startStatus = startStatus;
      this.work = work;
    }

    /** The progress shown at once (-1, the default: of unknown length). */
    public Task<T> progress(double start) {
      startProgress = start;
      return this;
    }

    /** The work's progress messages replace the status line while it runs. */
    public Task<T> messages() {
      messages = true;
      return this;
    }

    /** Runs on the UI thread after each progress report (a screen draws partial results there). */
    public Task<T> onProgress(Runnable r) {
      onProgress = r;
      return this;
    }

    /** Keeps the result and returns the status line after success. */
    public Task<T> onSuccess(java.util.function.Function<T, String> r) {
      done = r;
      return this;
    }

    /** The status line after a failure; the error itself goes to the job's error handler. */
    public Task<T> onFailure(java.util.function.Function<Throwable, String> r) {
      failed = r;
      return this;
    }

    /** The status line after Cancel (by default: nothing changed). */
    public Task<T> onCancel(String status) {
      return onCancel(() -> status);
    }

    /** Keeps what the work had done, if anything, and returns the status line after Cancel. */
    public Task<T> onCancel(java.util.function.Supplier<String> r) {
      cancelled = r;
      return this;
    }

    /** @return whether it started (not when another job of this runner is still running) */
    public boolean start() {
      return run(startStatus, startProgress, messages, work, done, failed, cancelled, onProgress);
    }
  }

  /** Asks the running job to stop; it ends as cancelled at its next check, changing nothing. */
  public void cancel() {
    if (running.get()) {
      cancelRequested = true;
      if (job != null) {
        job.cancel();
      }
    }
  }

  private void finish(double fraction, String message) {
    running.set(false);
    job = null;
    progress.set(fraction);
    status.set(message);
  }
}
