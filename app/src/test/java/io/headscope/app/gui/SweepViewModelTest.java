package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.app.gui.exec.DirectWorker;
import io.headscope.app.gui.exec.Worker;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.gui.sweep.SweepViewModel;
import io.headscope.model.Head;
import io.headscope.model.HeadMask;
import io.headscope.model.store.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Path;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SweepViewModelTest {
  @TempDir static Path dir;
  static Path tiny;

  @BeforeAll
  static void model() {
    tiny = TinyBert.create(2, 3, 21).writeTo(dir.resolve("tiny")).config().getParent();
  }

  private MainViewModel main(Worker worker) {
    MainViewModel vm = new MainViewModel(worker, new ModelRepository(dir.resolve("cache")));
    vm.textAProperty().set("the cat sat on the [MASK] .");
    vm.loadModel(tiny.toString());
    return vm;
  }

  @Test
  void theSweepCoversEveryHeadAndLayerAndAClickSelectsTheHead() {
    MainViewModel main = main(new DirectWorker());
    SweepViewModel vm = new SweepViewModel(main.session());
    vm.run();
    var r = vm.resultProperty().get();
    assertThat(r.layers()).isEqualTo(2);
    assertThat(r.heads()).isEqualTo(3);
    assertThat(r.hasLayers()).isTrue();
    assertThat(vm.runningProperty().get()).isFalse();
    // the heatmap's value is the service's delta, in the metric chosen
    assertThat(vm.value(1, 2)).isEqualTo(r.deltaLogprob(1, 2));
    vm.metricProperty().set(SweepViewModel.Metric.KL);
    assertThat(vm.value(1, 2)).isEqualTo(r.headKl()[1][2]).isGreaterThanOrEqualTo(0);
    assertThat(vm.describe(0, -1)).startsWith("layer 1 (all heads) off");
    vm.select(1, 0);
    assertThat(main.selectedProperty().get()).isEqualTo(new Head(1, 0));
    assertThat(r.mode()).isEqualTo(HeadMask.Mode.ZERO);
  }

  @Test
  void aCancelledSweepStopsAndLeavesNoResult() {
    boolean[] cancel = {false};
    // the same-thread worker, except that once asked, work sees itself cancelled at its next check
    Worker worker = new Worker() {
      @Override
      public <T> Job submit(Work<T> work, Listener<T> listener) {
        T result;
        try {
          result = work.run(new Progress() {
            @Override
            public void update(String message, double fraction) {}

            @Override
            public boolean isCancelled() {
              return cancel[0];
            }
          });
        } catch (CancellationException e) {
          listener.cancelled();
          return () -> { };
        } catch (Exception e) {
          listener.failed(e);
          return () -> { };
        }
        listener.done(result);
        return () -> { };
      }
    };
    MainViewModel main = main(worker);
    SweepViewModel vm = new SweepViewModel(main.session());
    cancel[0] = true;
    vm.run();
    assertThat(vm.resultProperty().get()).isNull();
    assertThat(vm.statusProperty().get()).contains("cancelled");
    assertThat(vm.runningProperty().get()).isFalse();
    assertThat(main.errorProperty().get()).isNull();
  }

  @Test
  void theTestWorkerCancelsASweepMidJob() {
    MainViewModel main = main(new DirectWorker());
    SweepViewModel vm = new SweepViewModel(main.session());
    double[] cancelledAt = {-1};
    vm.progressProperty().addListener((o, a, b) -> {
      if (vm.runningProperty().get() && b.doubleValue() > 0 && b.doubleValue() < 1 && cancelledAt[0] < 0) {
        cancelledAt[0] = b.doubleValue();
        vm.cancel();
      }
    });
    vm.run();
    assertThat(cancelledAt[0]).as("cancelled between two steps of the sweep").isBetween(0.0, 1.0);
    assertThat(vm.resultProperty().get()).isNull();
    assertThat(vm.statusProperty().get()).contains("cancelled");
    assertThat(vm.runningProperty().get()).isFalse();
    assertThat(main.errorProperty().get()).isNull();
  }
}
