package io.headscope.app.cli;

import io.headscope.analysis.corpus.Corpus;
import io.headscope.analysis.corpus.CorpusAnalysis;
import io.headscope.analysis.corpus.CorpusProblem;
import java.util.Locale;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * Progress of a corpus run on stderr: a progress bar on a terminal; without one (a pipe, a log, CI)
 * plain lines, because a progress bar redraws itself into a flood of lines there.
 */
final class CorpusProgress implements CorpusAnalysis.Progress, AutoCloseable {
  private final String task;
  private final boolean terminal;
  private ProgressBar bar;
  private int lastPercent = -1;

  CorpusProgress(String task) {
    this(task, System.console() != null);
  }

  CorpusProgress(String task, boolean terminal) {
    this.task = task;
    this.terminal = terminal;
  }

  @Override
  public void update(int done, int total) {
    if (terminal) {
      if (bar == null) {
        bar = new ProgressBarBuilder().setTaskName(task).setInitialMax(total).setUnit(" inputs", 1)
            .setStyle(ProgressBarStyle.ASCII).setConsumer(new me.tongfei.progressbar.ConsoleProgressBarConsumer(System.err))
            .continuousUpdate().build();
      }
      bar.stepTo(done);
      return;
    }
    int percent = total == 0 ? 100 : (int) (100L * done / total);
    // about one line per tenth, and always the last
    if (done == total || percent / 10 > lastPercent / 10) {
      System.err.printf(Locale.ROOT, "headscope: %s: %d of %d inputs (%d%%)%n", task, done, total, percent);
      lastPercent = percent;
    }
  }

  @Override
  public void close() {
    if (bar != null) {
      bar.close();
    }
  }

  /** Tells which lines were skipped: the first ten, then how many more. */
  static void reportProblems(Corpus c) {
    int shown = 0;
    for (CorpusProblem p : c.problems()) {
      if (shown++ == 10) {
        System.err.println("headscope: warning: " + (c.problems().size() - 10) + " more lines skipped");
        break;
      }
      System.err.println("headscope: warning: " + c.name() + ", " + p);
    }
  }
}
