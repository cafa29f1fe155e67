package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.analysis.distance.HeadMap;
import io.headscope.analysis.distance.JensenShannon;
import io.headscope.app.cli.HeadScopeCli;
import io.headscope.app.gui.exec.DirectWorker;
import io.headscope.app.gui.headmap.HeadMapViewModel;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.gui.screen.CorpusSource;
import io.headscope.app.render.figure.FigureFile;
import io.headscope.app.render.figure.HeadMapFigure;
import io.headscope.model.AttentionTrace;
import io.headscope.model.core.Head;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Files;
import java.nio.file.Path;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The head map screen's state without a window: the current input, a corpus, selection, exports. */
class HeadMapViewModelTest {
  @TempDir static Path dir;
  static Path tiny;
  static Path corpus;

  @BeforeAll
  static void model() throws Exception {
    tiny = TinyBert.create(2, 3, 17).writeTo(dir.resolve("tiny")).config().getParent();
    corpus = Files.writeString(dir.resolve("corpus.txt"), "the cat sat on the mat .\n\nthe dog ran .\tit was fast .\n");
  }

  private static MainViewModel main() {
    MainViewModel vm = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    vm.textAProperty().set("the cat sat on the mat .");
    vm.loadModel(tiny.toString());
    return vm;
  }

  @Test
  void theCurrentInputsMapHoldsItsDivergencesAndColoursByItsCategories() {
    MainViewModel main = main();
    HeadMapViewModel vm = new HeadMapViewModel(main.session(), main.scoresProperty());
    vm.draw();
    HeadMap m = vm.resultProperty().get();
    assertThat(m).isNotNull();
    assertThat(m.distances().count()).isEqualTo(6);
    AttentionTrace t = main.traceProperty().get();
    Head a = new Head(0, 1);
    Head b = new Head(1, 2);
    assertThat(m.distances().divergence(a, b)).isCloseTo(
        JensenShannon.meanOverRows(t.map(a), t.map(b), JensenShannon.CLARK_SMOOTHING), Offset.offset(1e-12));
    assertThat(vm.category(b)).isEqualTo(main.score(b).category());
    assertThat(vm.statusProperty().get()).contains("6 heads", "current input");
    assertThat(vm.describe(a)).startsWith("head 1-2 (layer 1)").contains("most alike");

    vm.select(b);
    assertThat(main.selectedProperty().get()).isEqualTo(b);
  }

  @Test
  void aCorpusMapsTheMeanAndItsCsvIsTheCommandsFile() throws Exception {
    MainViewModel main = main();
    HeadMapViewModel vm = new HeadMapViewModel(main.session(), main.scoresProperty());
    vm.sourceProperty().set(CorpusSource.file(corpus));
    vm.draw();
    HeadMap m = vm.resultProperty().get();
    assertThat(m.distances().inputs()).isEqualTo(2);
    Path app = dir.resolve("app-distances.csv");
    HeadMapViewModel.writeCsv(m, app);
    Path cli = dir.resolve("cli-distances.csv");
    assertThat(HeadScopeCli.run("head-distances", "--model", tiny.toString(), "--corpus", corpus.toString(),
        "--out", cli.toString())).isZero();
    assertThat(Files.readString(app)).isEqualTo(Files.readString(cli));

    // the figure: one circle per head, the layer as each point's label, a title
    String svg = FigureFile.svg(HeadMapFigure.of(m, vm::category, "the cat sat on the mat ."));
    assertThat(svg.split("<circle", -1).length - 1).isEqualTo(6 + 5); // heads + the key's five categories
    assertThat(svg).contains("<title>").contains("head map").contains("mean over 2 inputs");
  }

  @Test
  void withoutATraceDrawSaysWhatToDo() {
    MainViewModel main = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    main.loadModel(tiny.toString());
    HeadMapViewModel vm = new HeadMapViewModel(main.session(), main.scoresProperty());
    vm.draw();
    assertThat(vm.resultProperty().get()).isNull();
    assertThat(vm.statusProperty().get()).contains("Type a sentence");
  }

  @Test
  void greyDotsAreNamedInTheKeyAndTheFigureWhereTheyAreDrawn() {
    // issue 40: grey was drawn and never named. A tiny BERT whose heads all get a category: no grey, no entry
    MainViewModel bert = main();
    HeadMapViewModel onBert = new HeadMapViewModel(bert.session(), bert.scoresProperty());
    onBert.draw();
    HeadMap mb = onBert.resultProperty().get();
    long greyOnBert = java.util.stream.IntStream.range(0, mb.distances().count())
        .filter(i -> onBert.category(mb.distances().head(i)) == null).count();
    String svgBert = FigureFile.svg(HeadMapFigure.of(mb, onBert::category, "the cat sat on the mat ."));
    if (greyOnBert == 0) {
      assertThat(onBert.greyKey()).isNull();
      assertThat(svgBert).doesNotContain(HeadMapFigure.GREY_LABEL);
    } else {
      assertThat(onBert.greyKey()).startsWith("uncertain " + greyOnBert + " ");
      assertThat(svgBert).contains(HeadMapFigure.GREY_LABEL);
    }
    // a GPT-2: categories withheld, every dot grey, and the key and the figure say what grey means
    Path gpt2 = dir.resolve("gpt2");
    io.headscope.model.testing.families.FamilyModelFolders.write("gpt2", gpt2, 3);
    MainViewModel main = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    main.textAProperty().set("the cat sat on the mat");
    main.loadModel(gpt2.toString());
    HeadMapViewModel vm = new HeadMapViewModel(main.session(), main.scoresProperty());
    vm.draw();
    HeadMap m = vm.resultProperty().get();
    assertThat(m).as(vm.statusProperty().get()).isNotNull();
    assertThat(vm.greyKey()).contains("causal model");
    String svg = FigureFile.svg(HeadMapFigure.of(m, vm::category, "the cat sat on the mat"));
    assertThat(svg).contains(HeadMapFigure.GREY_LABEL);
    // the heads' dots, the five categories' and the grey one in the key
    assertThat(svg.split("<circle", -1).length - 1).isEqualTo(m.distances().count() + 5 + 1);
  }
}
