package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.analysis.flow.LayerCompatibility;
import io.headscope.analysis.flow.StitchedPredictions;
import io.headscope.app.cli.HeadScopeCli;
import io.headscope.app.gui.exec.DirectWorker;
import io.headscope.app.gui.layers.LayersViewModel;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.gui.screen.CorpusSource;
import io.headscope.app.render.figure.FigureFile;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ProgressListener;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Layers screen's state without a window: the matrix, a cell's read-out and predictions, the exports. */
class LayersViewModelTest {
  static final String TEXT = "the cat sat on the [MASK] .";
  @TempDir static Path dir;
  static Path tiny;
  static ModelFiles files;
  static Path corpus;

  @BeforeAll
  static void model() throws Exception {
    files = TinyBert.create(3, 4, 23).writeTo(dir.resolve("tiny"));
    tiny = files.config().getParent();
    corpus = Files.writeString(dir.resolve("corpus.txt"), "the cat sat on the mat .\n\nthe dog ran .\tit was fast .\n");
  }

  private static MainViewModel main() {
    MainViewModel vm = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    vm.textAProperty().set(TEXT);
    vm.loadModel(tiny.toString());
    return vm;
  }

  /** LayerCompatibility on a model loaded on its own, the way the CLI encodes. */
  private static LayerCompatibility independent(List<String[]> inputs) {
    try (BertModel m = BertModel.load(files)) {
      List<Encoding> e = inputs.stream().map(s -> m.encode(s[0], s[1])).toList();
      return LayerCompatibility.run(m, e, 0, ProgressListener.NONE, () -> false);
    }
  }

  @Test
  void theMatrixOfTheCurrentInputIsLayerCompatibilitys() {
    MainViewModel main = main();
    LayersViewModel vm = new LayersViewModel(main.session());
    assertThat(vm.rows()).isZero();
    vm.run();
    LayerCompatibility r = vm.resultProperty().get();
    assertThat(r).isNotNull();
    assertThat(vm.rows()).isEqualTo(4);
    assertThat(vm.columns()).isEqualTo(3);
    String[] one = {TEXT, null};
    LayerCompatibility expected = independent(List.<String[]>of(one));
    assertThat(r.logprob()).isDeepEqualTo(expected.logprob());
    assertThat(r.top1()).isDeepEqualTo(expected.top1());
    assertThat(r.intact()).isEqualTo(expected.intact());
    assertThat(vm.delta(2, 1)).isEqualTo(expected.logprob()[2][0] - expected.intact());
    assertThat(vm.delta(1, 2)).isCloseTo(0.0, org.assertj.core.data.Offset.offset(1e-5));
    assertThat(vm.describe(1, 2)).startsWith("h1 → layer 2 (the intact model)").contains("top-1 agreement 100%");
    assertThat(vm.describe(0, 3)).contains("layers 1–2 skipped");
    assertThat(vm.describe(3, 2)).contains("layers 2–3 repeated");
    assertThat(vm.statusProperty().get()).contains("current input");
  }

  @Test
  void aCorpusIsTheMeanOverItsInputsAndItsCsvIsTheCommandsBytes() throws Exception {
    MainViewModel main = main();
    LayersViewModel vm = new LayersViewModel(main.session());
    vm.sourceProperty().set(CorpusSource.file(corpus));
    vm.run();
    LayerCompatibility r = vm.resultProperty().get();
    assertThat(r.inputs()).isEqualTo(2);
    LayerCompatibility expected = independent(List.of(new String[] {"the cat sat on the mat .", null},
        new String[] {"the dog ran .", "it was fast ."}));
    assertThat(r.logprob()).isDeepEqualTo(expected.logprob());

    Path app = dir.resolve("app-compat.csv");
    LayersViewModel.writeCsv(r, app);
    Path cli = dir.resolve("cli-compat.csv");
    assertThat(HeadScopeCli.run("layers", "--model", tiny.toString(), "--corpus", corpus.toString(),
        "--out", cli.toString())).isZero();
    assertThat(Files.readAllBytes(app)).isEqualTo(Files.readAllBytes(cli));
  }

  @Test
  void theCurrentInputsCsvIsTheCommandsBytesAndTheFigureDrawsEveryCell() throws Exception {
    MainViewModel main = main();
    LayersViewModel vm = new LayersViewModel(main.session());
    vm.run();
    Path app = dir.resolve("app-one.csv");
    LayersViewModel.writeCsv(vm.resultProperty().get(), app);
    Path cli = dir.resolve("cli-one.csv");
    assertThat(HeadScopeCli.run("layers", "--model", tiny.toString(), "--text", TEXT, "--out", cli.toString())).isZero();
    assertThat(Files.readAllBytes(app)).isEqualTo(Files.readAllBytes(cli));

    Path svg = dir.resolve("layers.svg");
    FigureFile.write(vm.figure(), svg, FigureFile.Format.SVG, 1);
    String s = Files.readString(svg);
    assertThat(s).contains("layer compatibility").contains("h0 (embeddings)").contains("L3");
  }

  @Test
  void clickingACellGivesThatStitchedModelsPredictionsBesideTheIntactOnes() {
    MainViewModel main = main();
    LayersViewModel vm = new LayersViewModel(main.session());
    vm.select(0, 2);
    assertThat(vm.predictionsProperty().get()).as("nothing before a run").isNull();
    vm.run();
    vm.select(0, 2);
    StitchedPredictions s = vm.predictionsProperty().get();
    assertThat(s.from()).isZero();
    assertThat(s.to()).isEqualTo(2);
    assertThat(s.positions()).containsExactly(6);
    assertThat(s.stitched().get(0)).hasSize(5);
    assertThat(vm.cellStatusProperty().get()).contains("h0 fed into layer 2");
    // on the diagonal the stitched model is the intact one
    vm.select(2, 3);
    StitchedPredictions d = vm.predictionsProperty().get();
    assertThat(d.stitched()).isEqualTo(d.intact());
    assertThat(d.intact().get(0).get(0).token()).isEqualTo(d.targets()[0]);
    // skipping layers 1 and 2 changes the distribution (the tiny model's layers are random, not identities)
    assertThat(s.stitched()).isNotEqualTo(s.intact());
  }

  @Test
  void exportsBeforeARunSayWhatToDo() {
    LayersViewModel vm = new LayersViewModel(main().session());
    assertThatThrownBy(vm::figure).isInstanceOf(HeadScopeException.class).hasMessageContaining("Run");
    assertThatThrownBy(() -> LayersViewModel.writeCsv(null, dir.resolve("x.csv"))).isInstanceOf(HeadScopeException.class);
  }
}
