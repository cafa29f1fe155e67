package io.headscope.app.gui;

import io.headscope.app.gui.exec.Worker;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Holds submitted work until the test lets it run, in order, on the test's thread: the app's worker is one thread
 * that runs jobs in the order they came, so work asked for while a model loads waits behind the load. A test
 * can so ask for work between a load's start and its end, as a user typing during a load does.
 */
final class QueuedWorker implements Worker {
  private final Deque<Runnable> queue = new ArrayDeque<>();

  @Override
  public <T> Job submit(Work<T> work, Listener<T> listener) {
    Job job = () -> { };
    queue.add(() -> {
      T result;
      try {
        result = work.run(new Progress() {
          @Override
          public void update(String message, double fraction) {
            listener.progress(message, fraction);
          }

          @Override
          public boolean isCancelled() {
            return false;
          }
        });
      } catch (Exception | Error e) {
        listener.failed(e);
        return;
      }
      listener.done(result);
    });
    listener.started(job);
    return job;
  }

  /** Runs the waiting work and what it submits in turn, until nothing waits. */
  void runAll() {
    while (!queue.isEmpty()) {
      queue.poll().run();
    }
  }
}
