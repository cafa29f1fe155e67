package io.headscope.bench;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.analysis.causal.ActivationPatching;
import io.headscope.analysis.causal.AttributionPatching;
import io.headscope.analysis.causal.PatchDirection;
import io.headscope.analysis.causal.PatchInputs;
import io.headscope.analysis.causal.PatchResult;
import io.headscope.analysis.causal.PatchSite;
import io.headscope.app.gui.HeadScopeApp;
import io.headscope.app.gui.exec.FxWorker;
import io.headscope.app.gui.main.MainView;
import io.headscope.app.gui.patch.PatchView;
import io.headscope.model.BertModel;
import io.headscope.model.repository.ModelRepository;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javafx.application.Platform;
import javafx.stage.Stage;

/**
 * Issue 40: the Patching screen's 144-head run with attribution beside the same two calls made directly on
 * the same loaded model in the same JVM (what the CLI's {@code patch --attribution} runs), alternating,
 * so that the machine's load slows both alike: what the app adds is the difference. The first run of each
 * is printed apart (a fresh JVM's first run is what the CLI always pays). Prints figures; asserts nothing.
 * {@code ./headscope bench patch-gui [reps]} (under a display).
 */
public final class PatchGuiBenchmark {
  static final String CLEAN = "My sister lost her keys . The doctor said [MASK] would be late .";
  static final String CORRUPTED = "My brother lost his keys . The doctor said [MASK] would be late .";
  private static MainView view;

  public static void main(String[] args) throws Exception {
    int reps = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    // direct-first: the direct calls pay the JVM's first patching and the app's run comes after them, so the
    // two orders together split the warm-up from what the screen adds
    boolean directFirst = args.length > 1 && args[1].equals("direct-first");
    System.out.printf(Locale.ROOT, "HeadScope Patching screen beside direct calls, %d cores, load average %s%n",
        Runtime.getRuntime().availableProcessors(), AblationBenchmark.loadAverage());
    CountDownLatch started = new CountDownLatch(1);
    Platform.startup(started::countDown);
    started.await();
    fx(() -> {
      Stage stage = new Stage();
      view = HeadScopeApp.create(stage, new FxWorker(), ModelRepository.standard());
      stage.setWidth(1280);
      stage.setHeight(800);
      view.viewModel().textAProperty().set(CLEAN);
      stage.show();
      view.viewModel().loadModel(ModelRepository.DEFAULT_MODEL);
      return null;
    });
    waitIdle();
    PatchView patch = fx(() -> {
      view.showScreen("patch");
      PatchView v = (PatchView) view.lookup("#patch-view");
      v.viewModel().corruptedProperty().set(CORRUPTED);
      v.viewModel().targetProperty().set("she");
      v.viewModel().contrastProperty().set("he");
      return v;
    });
    waitIdle();
    List<Double> app = new ArrayList<>();
    List<Double> direct = new ArrayList<>();
    for (int r = 0; r < reps; r++) {
      if (directFirst) {
        direct.add(directRun());
        app.add(appRun(patch));
      } else {
        app.add(appRun(patch));
        direct.add(directRun());
      }
      System.out.printf(Locale.ROOT, "round %d: app %.2f s, direct %.2f s (load %s)%n", r + 1, app.get(r),
          direct.get(r), AblationBenchmark.loadAverage());
    }
    System.out.printf(Locale.ROOT, "first run: app %.2f s, direct %.2f s (the %s ran first)%n", app.get(0),
        direct.get(0), directFirst ? "direct calls" : "app's");
    if (reps > 1) {
      System.out.printf(Locale.ROOT, "median of the later runs: app %.2f s, direct %.2f s%n",
          median(app.subList(1, reps)), median(direct.subList(1, reps)));
    }
    System.out.printf(Locale.ROOT, "load average at the end %s%n", AblationBenchmark.loadAverage());
    Platform.exit();
    System.exit(0);
  }

  /** From the Run click to the result on screen (the status line and both grids drawn). */
  static double appRun(PatchView patch) throws Exception {
    PatchResult before = fx(() -> patch.viewModel().resultProperty().get());
    long t0 = System.nanoTime();
    fx(() -> {
      patch.viewModel().run();
      return null;
    });
    while (fx(() -> patch.viewModel().resultProperty().get() == before)) {
      Thread.sleep(20);
    }
    fx(() -> null); // the grids drawn: the listener ran in the same pulse
    return (System.nanoTime() - t0) / 1e9;
  }

  /** The CLI's two calls on the app's model, the worker idle. */
  static double directRun() throws Exception {
    BertModel m = fx(() -> view.viewModel().session().model());
    long t0 = System.nanoTime();
    long[] tc = m.tokenizer().targetAndContrast("she", "he");
    TargetMetric metric = new TargetMetric(TargetMetric.Kind.LOGIT_DIFF, tc[0], tc[1]);
    PatchInputs in = PatchInputs.of(m, CLEAN, CORRUPTED);
    PatchResult r = new ActivationPatching(m).run(in, metric, PatchSite.HEAD, PatchDirection.DENOISE);
    r.withAttribution(new AttributionPatching(m).run(in, metric, PatchSite.HEAD, PatchDirection.DENOISE));
    return (System.nanoTime() - t0) / 1e9;
  }

  static void waitIdle() throws Exception {
    long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(20);
    while (System.nanoTime() < end) {
      if (fx(() -> view.viewModel().traceProperty().get() != null && !view.viewModel().busyProperty().get())) {
        Thread.sleep(500);
        if (fx(() -> !view.viewModel().busyProperty().get())) {
          return;
        }
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("the window did not settle");
  }

  static double median(List<Double> xs) {
    List<Double> s = new ArrayList<>(xs);
    Collections.sort(s);
    int n = s.size();
    return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
  }

  private static <T> T fx(Supplier<T> s) throws Exception {
    CompletableFuture<T> f = new CompletableFuture<>();
    Platform.runLater(() -> {
      try {
        f.complete(s.get());
      } catch (Throwable e) {
        f.completeExceptionally(e);
      }
    });
    return f.get(20, TimeUnit.MINUTES);
  }
}
