package io.headscope.app.gui.exec;

import java.util.function.Consumer;

/**
 * The one way view models run model work: off the FX thread in the app ({@link FxWorker}), on the
 * caller's thread in tests ({@link DirectWorker}). Results and errors are delivered on the UI thread,
 * and only when the work has finished, so view-model state never changes halfway.
 */
public interface Worker {

  /** Work that may report progress and should stop early when cancelled. */
  @FunctionalInterface
  interface Work<T> {
    T run(Progress progress) throws Exception;
  }

  /** Given to running work. */
  interface Progress {
    /** @param fraction 0..1, or negative when unknown */
    void update(String message, double fraction);

    boolean isCancelled();
  }

  /** A handle on submitted work. */
  interface Job {
    void cancel();
  }

  /** What the view model hears: progress, the result, or the failure, always on the UI thread. */
  interface Listener<T> {
    /** The handle on the work, before it runs: Cancel works from then on, also mid-job. */
    default void started(Job job) {}

    default void progress(String message, double fraction) {}

    void done(T result);

    void failed(Throwable error);

    default void cancelled() {}
  }

  <T> Job submit(Work<T> work, Listener<T> listener);

  /** Convenience for work without progress reports. */
  default <T> Job submit(Work<T> work, Consumer<T> done, Consumer<Throwable> failed) {
    return submit(work, new Listener<>() {
      @Override
      public void done(T result) {
        done.accept(result);
      }

      @Override
      public void failed(Throwable error) {
        failed.accept(error);
      }
    });
  }
}
