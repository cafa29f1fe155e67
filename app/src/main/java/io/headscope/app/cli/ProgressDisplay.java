package io.headscope.app.cli;

import io.headscope.model.store.ProgressListener;
import java.io.PrintStream;
import java.util.Locale;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;

/**
 * Progress of a long command on stderr: a progress bar on a terminal, otherwise plain lines (a
 * redrawn bar floods logs and pipes), at most one every few seconds.
 */
final class ProgressDisplay implements ProgressListener, AutoCloseable {
  private static final int STEPS = 1000;
  private static final long LINE_INTERVAL_MS = 2000;

  private final String task;
  private final ProgressBar bar;
  private final PrintStream err = System.err;
  private long lastLine;
  private int lastPercent = -1;

  private ProgressDisplay(String task, boolean terminal) {
    this.task = task;
    this.bar = terminal
        ? new ProgressBarBuilder().setTaskName(task).setInitialMax(STEPS).hideEta()
            .setConsumer(new ConsoleProgressBarConsumer(err)).build()
        : null;
  }

  static ProgressDisplay start(String task) {
    return new ProgressDisplay(task, System.console() != null);
  }

  @Override
  public synchronized void progress(String stage, double fraction) {
    double f = Math.max(0, Math.min(1, fraction));
    if (bar != null) {
      bar.stepTo(Math.round(f * STEPS));
      bar.setExtraMessage(stage);
      return;
    }
    int percent = (int) Math.floor(f * 100);
    long now = System.currentTimeMillis();
    if (percent != lastPercent && (lastPercent < 0 || percent == 100 || now - lastLine >= LINE_INTERVAL_MS)) {
      err.printf(Locale.ROOT, "headscope: %s %d%% (%s)%n", task, percent, stage);
      err.flush();
      lastLine = now;
      lastPercent = percent;
    }
  }

  /** A listener that maps this one's 0..1 onto {@code from..to}, for one stage of several. */
  ProgressListener part(double from, double to) {
    return (stage, f) -> progress(stage, from + (to - from) * Math.max(0, f));
  }

  @Override
  public void close() {
    if (bar != null) {
      bar.close();
    }
  }
}
