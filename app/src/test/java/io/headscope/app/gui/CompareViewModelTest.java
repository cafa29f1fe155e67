package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.analysis.compare.ComparisonResult;
import io.headscope.app.cli.HeadScopeCli;
import io.headscope.app.gui.compare.CompareViewModel;
import io.headscope.app.gui.exec.DirectWorker;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.gui.screen.CorpusSource;
import io.headscope.model.core.Head;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Compare screen's state without a window: the run, a head's maps, the CSV the CLI writes. */
class CompareViewModelTest {
  static final String TEXT = "the cat sat on the mat .";
  @TempDir static Path dir;
  static Path a;
  static Path b;
  static Path corpus;

  @BeforeAll
  static void models() throws Exception {
    a = TinyBert.create(2, 3, 5).writeTo(dir.resolve("a")).config().getParent();
    b = TinyBert.create(2, 3, 11).writeTo(dir.resolve("b")).config().getParent();
    corpus = Files.writeString(dir.resolve("corpus.txt"), "the cat sat on the mat .\n\nthe dog ran .\tit was fast .\n");
  }

  private static MainViewModel main() {
    MainViewModel vm = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    vm.textAProperty().set(TEXT);
    vm.loadModel(a.toString());
    return vm;
  }

  @Test
  void theCurrentInputsCsvIsTheBytesTheCliWrites() throws Exception {
    MainViewModel main = main();
    CompareViewModel vm = new CompareViewModel(main.session(), main.repository());
    vm.secondProperty().set(new CompareViewModel.SecondModel("b", b.toString()));
    vm.run();
    ComparisonResult r = vm.resultProperty().get();
    assertThat(r).isNotNull();
    assertThat(r.inputs()).isEqualTo(1);
    assertThat(vm.statusProperty().get()).contains("current input");
    Path app = dir.resolve("app.csv");
    CompareViewModel.writeCsv(r, app);
    Path cli = dir.resolve("cli.csv");
    assertThat(HeadScopeCli.run("compare", "--model", a.toString(), "--with", b.toString(), "--text", TEXT,
        "--out", cli.toString())).isZero();
    assertThat(Files.readAllBytes(app)).isEqualTo(Files.readAllBytes(cli));

    // a head's two maps on the current input: A's is the session's map, and their cosine the run's (one input)
    vm.select(new Head(1, 2));
    CompareViewModel.HeadMaps m = vm.mapsProperty().get();
    assertThat(main.session().selected()).isEqualTo(new Head(1, 2));
    assertThat(m.a()).isDeepEqualTo(main.session().trace().map(new Head(1, 2)));
    assertThat(m.cosine()).isCloseTo(r.head(new Head(1, 2)).cosine(), org.assertj.core.data.Offset.offset(1e-5));
    assertThat(vm.figure()).isNotNull();
  }

  @Test
  void aCorpusRunIsTheCorpusCommandsCsv() throws Exception {
    MainViewModel main = main();
    CompareViewModel vm = new CompareViewModel(main.session(), main.repository());
    vm.secondProperty().set(new CompareViewModel.SecondModel("b", b.toString()));
    vm.sourceProperty().set(CorpusSource.file(corpus));
    vm.run();
    Path app = dir.resolve("app-corpus.csv");
    CompareViewModel.writeCsv(vm.resultProperty().get(), app);
    Path cli = dir.resolve("cli-corpus.csv");
    assertThat(HeadScopeCli.run("compare", "--model", a.toString(), "--with", b.toString(), "--corpus",
        corpus.toString(), "--out", cli.toString())).isZero();
    assertThat(Files.readAllBytes(app)).isEqualTo(Files.readAllBytes(cli));
  }

  @Test
  void anotherShapeFailsWithItsReasonAndKeepsNoResult() {
    MainViewModel main = main();
    CompareViewModel vm = new CompareViewModel(main.session(), main.repository());
    Path deeper = TinyBert.create(3, 3, 5).writeTo(dir.resolve("deeper")).config().getParent();
    vm.secondProperty().set(new CompareViewModel.SecondModel("deeper", deeper.toString()));
    vm.run();
    assertThat(vm.resultProperty().get()).isNull();
    assertThat(vm.statusProperty().get()).contains("same shape");
  }

  @Test
  void theLoadedCheckpointAsBIsTheSameMapsEverywhere() {
    MainViewModel main = main();
    CompareViewModel vm = new CompareViewModel(main.session(), main.repository());
    vm.secondProperty().set(new CompareViewModel.SecondModel("a", a.toString()));
    vm.run();
    ComparisonResult r = vm.resultProperty().get();
    assertThat(r.perHead()).allSatisfy(h -> {
      assertThat(h.cosine()).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-6));
      assertThat(h.jsDivergence()).isCloseTo(0.0, org.assertj.core.data.Offset.offset(1e-6));
    });
    vm.select(new Head(0, 1));
    assertThat(vm.mapsProperty().get().b()).isDeepEqualTo(vm.mapsProperty().get().a());
  }
}
