package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;
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
    assertThat(Files.readString(app)).isEqualTo(Files.readString(cli));

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
    assertThat(Files.readString(app)).isEqualTo(Files.readString(cli));

    SweepViewModel sweep = new SweepViewModel(main.session());
    sweep.run();
    Path appAblation = dir.resolve("app-ablation.csv");
    Exports.ablationCsv(sweep.resultProperty().get(), appAblation);
    Path cliAblation = dir.resolve("cli-ablation.csv");
    assertThat(HeadScopeCli.run("ablate", "--model", tiny.toString(), "--text", "the cat sat on the [MASK] .",
        "--layers", "--out", cliAblation.toString())).isZero();
    assertThat(Files.readString(appAblation)).isEqualTo(Files.readString(cliAblation));
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
