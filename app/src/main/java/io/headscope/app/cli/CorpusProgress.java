package io.headscope.app.cli;

import io.headscope.analysis.corpus.CorpusAnalysis;
import io.headscope.analysis.corpus.CorpusProblem;
import io.headscope.analysis.corpus.CorpusResult;
import java.util.List;
import java.util.Locale;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * Progress of a corpus run on stderr: a progress bar on a terminal; without one (a pipe, a log, CI)
 * plain lines, because a progress bar redraws itself into a flood of lines there: the first batch,
 * then about one line per tenth or every ten seconds, and the last. A file that is still being read
 * has no input count yet: its progress is the share of the file done (read, times the share of what was
 * read that is analysed).
 */
final class CorpusProgress implements CorpusAnalysis.Progress, AutoCloseable {
  private static final long QUIET_NANOS = 10_000_000_000L;

  private final String task;
  private final boolean terminal;
  private ProgressBar bar;
  private int lastPercent = -1;
  private long lastLine;

  CorpusProgress(String task) {
    this(task, System.console() != null);
  }

  CorpusProgress(String task, boolean terminal) {
    this.task = task;
    this.terminal = terminal;
  }

  @Override
  public void update(int done, int total) {
    if (total >= 0) {
      show(done, total == 0 ? 1.0 : done / (double) total, done + " of " + total + " inputs", done == total);
    }
  }

  @Override
  public void read(int done, double fractionOfFile) {
    if (fractionOfFile >= 0) {
      show(done, fractionOfFile, done + " inputs, " + Math.round(100 * fractionOfFile) + "% of the file done",
          fractionOfFile >= 1.0);
    } else if (!terminal && (lastLine == 0 || System.nanoTime() - lastLine > QUIET_NANOS)) {
      lastLine = System.nanoTime();
      System.err.printf(Locale.ROOT, "headscope: %s: %d inputs%n", task, done);
    }
  }

  private void show(int done, double fraction, String words, boolean last) {
    int percent = (int) Math.floor(100 * fraction);
    if (terminal) {
      if (bar == null) {
        bar = new ProgressBarBuilder().setTaskName(task).setInitialMax(100).setUnit("%", 1)
            .setStyle(ProgressBarStyle.ASCII).setConsumer(new me.tongfei.progressbar.ConsoleProgressBarConsumer(System.err))
            .continuousUpdate().build();
      }
      bar.stepTo(percent);
      bar.setExtraMessage(words);
      return;
    }
    boolean first = done > 0 && lastLine == 0;
    boolean tenth = percent / 10 > lastPercent / 10;
    boolean quiet = lastLine != 0 && System.nanoTime() - lastLine > QUIET_NANOS;
    if (done > 0 && (first || tenth || quiet || last) && percent != lastPercent) {
      System.err.printf(Locale.ROOT, "headscope: %s: %s (%d%%)%n", task, words, percent);
      lastPercent = percent;
      lastLine = System.nanoTime();
    }
  }

  @Override
  public void close() {
    if (bar != null) {
      bar.close();
    }
  }

  /** Tells which lines were skipped: the first ten, then how many more. */
  static void reportProblems(String name, List<CorpusProblem> problems, int total) {
    int shown = 0;
    for (CorpusProblem p : problems) {
      if (shown == 10) {
        break;
      }
      System.err.println("headscope: warning: " + name + ", " + p);
      shown++;
    }
    if (total > shown) {
      System.err.println("headscope: warning: " + (total - shown) + " more lines skipped");
    }
  }

  static void reportProblems(CorpusResult r) {
    reportProblems(r.corpus().name(), r.corpus().problems(), r.skipped());
  }
}
