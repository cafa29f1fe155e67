package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.app.gui.exec.BackgroundJob;
import io.headscope.app.gui.exec.DirectWorker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.Test;

/** The one job helper of the sweep, the corpus run and the exports, on the same-thread test worker. */
class BackgroundJobTest {
  private final List<Throwable> errors = new ArrayList<>();
  private final BackgroundJob job = new BackgroundJob(new DirectWorker(), errors::add, "idle");

  private static final BackgroundJob.Outcome<Integer> SAYS = new BackgroundJob.Outcome<>() {
    @Override
    public String done(Integer steps) {
      return "done after " + steps;
    }

    @Override
    public String failed(Throwable error) {
      return "failed";
    }

    @Override
    public String cancelled() {
      return "cancelled";
    }
  };

  /** Ten steps, each reported, stopping at the first check that finds itself cancelled. */
  private static int tenSteps(io.headscope.app.gui.exec.Worker.Progress p, int[] ran) {
    for (int i = 1; i <= 10; i++) {
      if (p.isCancelled()) {
        throw new CancellationException();
      }
      ran[0] = i;
      p.update("step " + i, i / 10.0);
    }
    return ran[0];
  }

  @Test
  void theTestWorkerCancelsMidJob() {
    int[] ran = {0};
    job.progressProperty().addListener((o, a, b) -> {
      if (b.doubleValue() == 0.3) {
        job.cancel();
      }
    });
    assertThat(job.start("working", 0, true, p -> tenSteps(p, ran), SAYS)).isTrue();
    assertThat(ran[0]).isEqualTo(3);
    assertThat(job.statusProperty().get()).isEqualTo("cancelled");
    assertThat(job.runningProperty().get()).isFalse();
    assertThat(job.progressProperty().get()).isZero();
    assertThat(errors).isEmpty();
  }

  @Test
  void successReportsProgressMessagesThenTheOutcome() {
    int[] ran = {0};
    List<String> seen = new ArrayList<>();
    job.statusProperty().addListener((o, a, b) -> seen.add(b));
    job.start("working", -1, true, p -> tenSteps(p, ran), SAYS);
    assertThat(seen).startsWith("working", "step 1").endsWith("step 10", "done after 10");
    assertThat(job.progressProperty().get()).isEqualTo(1.0);
    assertThat(job.runningProperty().get()).isFalse();
  }

  @Test
  void aFailureGoesToTheErrorHandlerAndTheStatusLine() {
    IllegalStateException boom = new IllegalStateException("boom");
    job.start("working", 0, false, p -> {
      throw boom;
    }, SAYS);
    assertThat(errors).containsExactly(boom);
    assertThat(job.statusProperty().get()).isEqualTo("failed");
    assertThat(job.runningProperty().get()).isFalse();
  }
}
