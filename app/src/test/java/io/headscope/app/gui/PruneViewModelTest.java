package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.app.cli.HeadScopeCli;
import io.headscope.app.gui.exec.DirectWorker;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.gui.prune.PruneViewModel;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pruning panel's state without a window: both curves, and each exported with the CLI's bytes. */
class PruneViewModelTest {
  @TempDir static Path dir;
  static Path classifier;
  static Path tiny;
  static Path labelled;
  static Path text;

  @BeforeAll
  static void write() throws Exception {
    classifier = TinyBert.create(2, 3, 23).withClassifier("neg", "pos").writeTo(dir.resolve("sentiment")).config()
        .getParent();
    tiny = TinyBert.create(2, 2, 5).writeTo(dir.resolve("tiny")).config().getParent();
    labelled = Files.writeString(dir.resolve("labelled.tsv"), "the cat sat on the mat .\tpos\na dog ran\tneg\n"
        + "she was a queen\the was a king\tpos\nbig red car\tneg\n");
    text = Files.writeString(dir.resolve("text.txt"), "the cat sat on the mat .\nthe [MASK] ran .\n");
  }

  private static MainViewModel main(Path model) {
    MainViewModel vm = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    vm.textAProperty().set("the cat sat on the mat .");
    vm.loadModel(model.toString());
    return vm;
  }

  @Test
  void bothCurvesOfAClassifierAreTheCommandsFiles() throws Exception {
    PruneViewModel vm = new PruneViewModel(main(classifier).session());
    vm.run();
    assertThat(vm.resultProperty().get()).isNull();
    assertThat(vm.statusProperty().get()).contains("Open a corpus file first");
    vm.corpusProperty().set(labelled);
    vm.run();
    PruneViewModel.Curves c = vm.resultProperty().get();
    assertThat(c).isNotNull();
    assertThat(c.importance().metric()).isEqualTo("accuracy");
    assertThat(c.importance().steps()).hasSize(7);
    assertThat(c.random().steps().get(6).headsPruned()).isEqualTo(6);
    assertThat(vm.statusProperty().get()).contains("importance order").contains("random order");
    for (String order : new String[] {"importance", "random"}) {
      Path app = dir.resolve("app-" + order + ".csv");
      PruneViewModel.writeCsv(order.equals("importance") ? c.importance() : c.random(), app);
      Path cli = dir.resolve("cli-" + order + ".csv");
      assertThat(HeadScopeCli.run("prune", "--model", classifier.toString(), "--corpus", labelled.toString(),
          "--order", order, "--out", cli.toString())).isZero();
      assertThat(Files.readAllBytes(app)).as(order).isEqualTo(Files.readAllBytes(cli));
    }
  }

  @Test
  void aModelWithoutAClassifierPrunesByMaskedLmQualityOnText() throws Exception {
    PruneViewModel vm = new PruneViewModel(main(tiny).session());
    vm.corpusProperty().set(text);
    vm.run();
    PruneViewModel.Curves c = vm.resultProperty().get();
    assertThat(c.random().metric()).isEqualTo("logprob");
    Path app = dir.resolve("app-mlm.csv");
    PruneViewModel.writeCsv(c.random(), app);
    Path cli = dir.resolve("cli-mlm.csv");
    assertThat(HeadScopeCli.run("prune", "--model", tiny.toString(), "--corpus", text.toString(), "--order",
        "random", "--out", cli.toString())).isZero();
    assertThat(Files.readAllBytes(app)).isEqualTo(Files.readAllBytes(cli));
  }
}
