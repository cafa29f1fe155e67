package io.headscope.app.gui.exec;

import java.util.concurrent.CancellationException;

/**
 * Runs work at once on the calling thread: view-model tests need no window and no waiting. The job's
 * handle is handed to the listener before the work runs, so a test can cancel mid-job (from a progress
 * report, as a user's Cancel would land between two steps).
 */
public final class DirectWorker implements Worker {

  @Override
  public <T> Job submit(Work<T> work, Listener<T> listener) {
    boolean[] cancelled = {false};
    Job job = () -> cancelled[0] = true;
    listener.started(job);
    T result;
    try {
      result = work.run(new Progress() {
        @Override
        public void update(String message, double fraction) {
          listener.progress(message, fraction);
        }

        @Override
        public boolean isCancelled() {
          return cancelled[0];
        }
      });
    } catch (CancellationException e) {
      listener.cancelled();
      return job;
    } catch (Exception | Error e) {
      listener.failed(e);
      return job;
    }
    listener.done(result);
    return job;
  }
}
