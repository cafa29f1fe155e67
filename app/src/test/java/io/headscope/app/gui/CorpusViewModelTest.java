package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.analysis.corpus.CorpusResult;
import io.headscope.app.cli.HeadScopeCli;
import io.headscope.app.gui.corpus.CorpusViewModel;
import io.headscope.app.gui.exec.DirectWorker;
import io.headscope.app.gui.exec.Worker;
import io.headscope.app.gui.export.Exports;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.gui.screen.CorpusSource;
import io.headscope.app.gui.sweep.SweepViewModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The corpus screen's state without a window, and the app's CSV exports: each must be the very file
 * the matching CLI command writes (compared byte for byte on a tiny model).
 */
class CorpusViewModelTest {
  @TempDir static Path dir;
  static Path tiny;
  static Path corpus;

  @BeforeAll
  static void model() throws Exception {
    tiny = TinyBert.create(2, 3, 17).writeTo(dir.resolve("tiny")).config().getParent();
    corpus = Files.writeString(dir.resolve("corpus.txt"),
        "the cat sat on the mat .\n\nthe dog ran .\tit was fast .\na big house , a small car .\n");
  }

  private static MainViewModel main(Worker worker) {
    MainViewModel vm = new MainViewModel(worker, new ModelRepository(dir.resolve("cache")));
    vm.textAProperty().set("the cat sat on the [MASK] .");
    vm.loadModel(tiny.toString());
    return vm;
  }

  @Test
  void aCorpusRunClassifiesEveryHeadAndItsCsvIsTheClassifyCommandsFile() throws Exception {
    MainViewModel main = main(new DirectWorker());
    CorpusViewModel vm = new CorpusViewModel(main.session());
    vm.sourceProperty().set(CorpusSource.file(corpus));
    vm.run();
    CorpusResult r = vm.resultProperty().get();
    assertThat(r.inputs()).isEqualTo(3);
    assertThat(r.corpus().problems()).hasSize(1); // the blank line
    assertThat(r.perHead()).hasSize(6);
    assertThat(r.modelShares().values().stream().mapToDouble(Double::doubleValue).sum()).isCloseTo(1.0,
        org.assertj.core.data.Offset.offset(1e-9));
    assertThat(vm.runningProperty().get()).isFalse();
    assertThat(vm.statusProperty().get()).contains("3 inputs", "1 lines skipped");
    assertThat(vm.describe(new Head(1, 2))).startsWith("head 2-3:").contains("of 3 inputs");

    Path app = dir.resolve("app-corpus.csv");
    vm.exportCsv(app);
    Path cli = dir.resolve("cli-corpus.csv");
    assertThat(HeadScopeCli.run("classify", "--model", tiny.toString(), "--corpus", corpus.toString(),
        "--out", cli.toString())).isZero();
    // the two runs make the same float32 operations: the same text where the engine's products are batch-invariant;
    // elsewhere (an AMD CPU, the AVX2 leg) each number within 2 Float32Bounds.forward of its scale of the other
    // (a corpus's numbers are means over its inputs, each no longer than the model's positions)
    var config = main.session().model().config();
    double rel = 2 * io.headscope.model.testing.Float32Bounds.forward(config, config.maxPositionEmbeddings());
    assertSameTable(Files.readString(app), Files.readString(cli), main.session().model().batchInvariant(), rel);

    vm.select(new Head(1, 0));
    assertThat(main.selectedProperty().get()).isEqualTo(new Head(1, 0));
  }

  /**
   * Issue 40's walk-through: Run on the corpus screen of a GPT-2 folder put an error dialog over the window
   * (the session's error) after a run that could not classify. Now nothing runs, the screen's line says why,
   * and the session has no error to show.
   */
  @Test
  void aCausalModelsCorpusRunIsRefusedInTheScreensLineWithoutAnErrorDialog() throws Exception {
    Path gpt2 = io.headscope.model.testing.families.FamilyModelFolders.write("gpt2", dir.resolve("gpt2"), 3)
        .config().getParent();
    MainViewModel main = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    main.textAProperty().set("the cat sat on the mat");
    main.loadModel(gpt2.toString());
    CorpusViewModel vm = new CorpusViewModel(main.session());
    vm.sourceProperty().set(CorpusSource.file(corpus));
    vm.run();
    assertThat(main.session().errorProperty().get()).as("no error dialog").isNull();
    assertThat(vm.resultProperty().get()).isNull();
    assertThat(vm.runningProperty().get()).isFalse();
    assertThat(vm.statusProperty().get()).startsWith("No corpus run: ").contains("causal").doesNotContain("\n");
  }

  @Test
  void theCurrentSentencesCsvIsClassifyTextsFileAndTheSweepsIsAblatesFile() throws Exception {
    MainViewModel main = main(new DirectWorker());
    Path app = dir.resolve("app-text.csv");
    Exports.classificationCsv(Exports.oneInput(main.scoresProperty(), main.classifier()), app);
    Path cli = dir.resolve("cli-text.csv");
    assertThat(HeadScopeCli.run("classify", "--model", tiny.toString(), "--text", "the cat sat on the [MASK] .",
        "--out", cli.toString())).isZero();
    // the two runs make the same float32 operations: the same text where the engine's products are batch-invariant;
    // elsewhere (an AMD CPU, the AVX2 leg) each number within 2 Float32Bounds.forward of its scale of the other
    double rel = 2 * io.headscope.model.testing.Float32Bounds.forward(main.session().model().config(),
        main.traceProperty().get().encoding().length());
    assertSameTable(Files.readString(app), Files.readString(cli), main.session().model().batchInvariant(), rel);

    SweepViewModel sweep = new SweepViewModel(main.session());
    sweep.run();
    Path appAblation = dir.resolve("app-ablation.csv");
    Exports.ablationCsv(sweep.resultProperty().get(), appAblation);
    Path cliAblation = dir.resolve("cli-ablation.csv");
    assertThat(HeadScopeCli.run("ablate", "--model", tiny.toString(), "--text", "the cat sat on the [MASK] .",
        "--layers", "--out", cliAblation.toString())).isZero();
    // a delta is the difference of two metrics, each within the bound of its scale: twice the bound for each run
    assertSameTable(Files.readString(appAblation), Files.readString(cliAblation), main.session().model().batchInvariant(),
        2 * rel);
  }

  /**
   * Two CSV files of one table: equal text where the runs are bit-equal; otherwise the same header, the same words,
   * and every number within {@code rel} of the file's largest magnitude (the scale every number there is computed
   * from: shares of attention are at most 1, a row's metrics at most the largest) plus the two printings' rounding
   * to 6 decimals.
   */
  private static void assertSameTable(String got, String want, boolean bitEqual, double rel) {
    if (bitEqual) {
      assertThat(got).isEqualTo(want);
      return;
    }
    String[] a = got.split("\n", -1);
    String[] b = want.split("\n", -1);
    assertThat(a).hasSameSizeAs(b);
    assertThat(a[0]).isEqualTo(b[0]);
    double scale = 1;
    for (String line : b) {
      for (String cell : line.split(",", -1)) {
        double v = number(cell);
        if (!Double.isNaN(v)) {
          scale = Math.max(scale, Math.abs(v));
        }
      }
    }
    for (int i = 1; i < a.length; i++) {
      String[] x = a[i].split(",", -1);
      String[] y = b[i].split(",", -1);
      assertThat(x).as("row %d", i).hasSameSizeAs(y);
      for (int j = 0; j < x.length; j++) {
        double u = number(x[j]);
        double v = number(y[j]);
        if (Double.isNaN(u) || Double.isNaN(v)) {
          assertThat(x[j]).as("row %d, column %d", i, j).isEqualTo(y[j]);
        } else {
          assertThat(u).as("row %d, column %d", i, j).isCloseTo(v, within(rel * scale + 1e-6));
        }
      }
    }
  }

  private static double number(String cell) {
    try {
      return Double.parseDouble(cell.strip());
    } catch (NumberFormatException words) {
      return Double.NaN;
    }
  }

  @Test
  void aFileThatIsNotUtf8IsReportedAndTheLastResultStays() throws Exception {
    MainViewModel main = main(new DirectWorker());
    CorpusViewModel vm = new CorpusViewModel(main.session());
    vm.sourceProperty().set(CorpusSource.file(corpus));
    vm.run();
    CorpusResult first = vm.resultProperty().get();
    Path latin1 = Files.write(dir.resolve("latin1.txt"), "caf\u00e9 cr\u00e8me .\n".getBytes("ISO-8859-1"));
    vm.sourceProperty().set(CorpusSource.file(latin1));
    vm.run();
    assertThat(main.errorProperty().get()).contains("not UTF-8");
    assertThat(vm.resultProperty().get()).isSameAs(first);
    assertThat(vm.runningProperty().get()).isFalse();
    assertThatThrownBy(() -> new CorpusViewModel(main.session()).exportCsv(dir.resolve("none.csv")))
        .isInstanceOf(HeadScopeException.class).hasMessageContaining("Run a corpus first");
    assertThat(dir.resolve("none.csv")).doesNotExist();
  }

  @Test
  void aCancelledRunLeavesNoResult() {
    boolean[] cancel = {false};
    List<Double> progress = new ArrayList<>();
    Worker worker = new Worker() {
      @Override
      public <T> Job submit(Work<T> work, Listener<T> listener) {
        try {
          T result = work.run(new Progress() {
            @Override
            public void update(String message, double fraction) {
              progress.add(fraction);
              cancel[0] |= fraction > 0; // cancelled part-way: once the first step is done
            }

            @Override
            public boolean isCancelled() {
              return cancel[0];
            }
          });
          listener.done(result);
        } catch (CancellationException e) {
          listener.cancelled();
        } catch (Exception e) {
          listener.failed(e);
        }
        return () -> { };
      }
    };
    MainViewModel main = main(worker);
    CorpusViewModel vm = new CorpusViewModel(main.session());
    vm.sourceProperty().set(CorpusSource.shipped("english-sentences.txt"));
    vm.run();
    assertThat(vm.resultProperty().get()).isNull();
    assertThat(vm.statusProperty().get()).contains("Cancelled");
    assertThat(progress).as("progress before the cancel").anyMatch(f -> f > 0).noneMatch(f -> f >= 1);
    assertThat(main.errorProperty().get()).isNull();
  }

  @Test
  void everyShippedCorpusIsOnTheClassPath() {
    for (CorpusSource s : CorpusSource.SHIPPED) {
      assertThat(s.read().inputs()).as(s.label()).isNotEmpty();
    }
  }
}
