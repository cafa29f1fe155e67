package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.analysis.favor.Favor;
import io.headscope.analysis.favor.FavorAnalysis;
import io.headscope.analysis.favor.FavorHeads;
import io.headscope.analysis.favor.FavorInput;
import io.headscope.analysis.favor.RandomFeatures;
import io.headscope.app.cli.HeadScopeCli;
import io.headscope.app.gui.exec.DirectWorker;
import io.headscope.app.gui.favor.FavorViewModel;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.gui.predict.PredictionRow;
import io.headscope.app.render.figure.FigureFile;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.Intervention;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FavorViewModelTest {
  static final String SENTENCE = "the cat sat on the mat .";
  @TempDir static Path dir;
  static Path tiny;

  @BeforeAll
  static void model() {
    tiny = TinyBert.create(2, 3, 19).writeTo(dir.resolve("tiny")).config().getParent();
  }

  private static MainViewModel main() {
    MainViewModel vm = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    vm.textAProperty().set(SENTENCE);
    vm.loadModel(tiny.toString());
    return vm;
  }

  @Test
  void theGridHoldsFavorAnalysisErrorsAndTheirMeanOverDrawsAtTheChosenM() {
    MainViewModel main = main();
    FavorViewModel vm = new FavorViewModel(main.session());
    vm.run();
    assertThat(vm.resultProperty().get()).isNotNull();
    AttentionTrace t = main.traceProperty().get();
    var o = new FavorAnalysis.Options(FavorViewModel.FEATURES, FavorViewModel.DRAWS, FavorViewModel.SEED,
        List.of(RandomFeatures.Kind.ORF, RandomFeatures.Kind.IID), false);
    var rows = FavorAnalysis.run(main.session().model(), List.of(t.encoding()), o, (m, f) -> { }, () -> false).rows();
    FavorInput in = FavorInput.capture(main.session().model(), t.encoding());
    int dh = main.session().model().config().headSize();
    for (int mi : new int[] {0, 4}) {
      for (RandomFeatures.Kind kind : RandomFeatures.Kind.values()) {
        vm.featureIndexProperty().set(mi);
        vm.kindProperty().set(kind);
        int m = FavorViewModel.FEATURES[mi];
        for (int l = 0; l < 2; l++) {
          for (int h = 0; h < 3; h++) {
            int layer = l + 1;
            int head = h + 1;
            double analysis = rows.stream().filter(r -> r.layer() == layer && r.head() == head && r.features() == m
                && r.kind() == kind).findFirst().orElseThrow().mapError();
            assertThat(vm.value(l, h)).isEqualTo(analysis);
            // by hand: the mean over the draws of each draw's TV distance to the trace's own map
            double sum = 0;
            for (int d = 0; d < FavorViewModel.DRAWS; d++) {
              double[][] w = FavorAnalysis.directions(FavorViewModel.SEED, m, kind, l, h, d, dh);
              sum += Favor.error(t.map(new Head(l, h)), Favor.map(in.q(l, h), in.k(l, h), w));
            }
            assertThat(vm.value(l, h)).isCloseTo(sum / FavorViewModel.DRAWS, within(1e-9));
          }
        }
      }
    }
  }

  @Test
  void aClickShowsTheHeadsExactMapItsFavorMapAndTheirDifference() {
    MainViewModel main = main();
    FavorViewModel vm = new FavorViewModel(main.session());
    vm.run();
    vm.featureIndexProperty().set(0);
    vm.select(1, 2);
    assertThat(main.selectedProperty().get()).isEqualTo(new Head(1, 2));
    FavorViewModel.HeadMaps maps = vm.mapsProperty().get();
    float[][] exact = main.traceProperty().get().map(new Head(1, 2));
    assertThat(maps.head()).isEqualTo(new Head(1, 2));
    assertThat(maps.exact()).isDeepEqualTo(exact);
    double tv = 0;
    for (int i = 0; i < exact.length; i++) {
      float row = 0;
      for (int j = 0; j < exact.length; j++) {
        row += maps.favor()[i][j];
        assertThat(maps.difference()[i][j]).isEqualTo(maps.favor()[i][j] - exact[i][j]);
        tv += 0.5 * Math.abs(maps.difference()[i][j]) / exact.length;
      }
      assertThat(row).isCloseTo(1f, within(1e-4f));
    }
    assertThat(maps.error()).isCloseTo(tv, within(1e-5)).isGreaterThan(0);
    // the curve is the grid's value at each m, and m = 256 is closer than m = 16 for this head
    double[][] curve = vm.curve(1, 2);
    assertThat(curve[0][0]).isEqualTo(vm.value(1, 2));
    assertThat(curve[0][4]).isLessThan(curve[0][0]);
    vm.featureIndexProperty().set(4);
    assertThat(vm.mapsProperty().get().m()).isEqualTo(256);
    assertThat(vm.mapsProperty().get().error()).isLessThan(maps.error());
  }

  @Test
  void theCsvIsTheFavorCommandsFileAndTheFigureNamesM() throws Exception {
    MainViewModel main = main();
    FavorViewModel vm = new FavorViewModel(main.session());
    vm.run();
    Path app = dir.resolve("app-favor.csv");
    FavorViewModel.writeCsv(vm.csv(), app);
    Path cli = dir.resolve("cli-favor.csv");
    assertThat(HeadScopeCli.run("favor", "--model", tiny.toString(), "--text", SENTENCE, "--out", cli.toString()))
        .isZero();
    assertThat(Files.readAllBytes(app)).isEqualTo(Files.readAllBytes(cli));
    assertThat(Files.readString(app)).startsWith("layer,head,features,kind,map_error");
    String svg = FigureFile.svg(vm.figure());
    assertThat(svg).contains("FAVOR+ map error at m = 64 (ORF)").contains(SENTENCE);
  }

  @Test
  void withoutATraceRunSaysWhatToDo() {
    MainViewModel main = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    main.loadModel(tiny.toString());
    FavorViewModel vm = new FavorViewModel(main.session());
    vm.run();
    assertThat(vm.resultProperty().get()).isNull();
    assertThat(vm.statusProperty().get()).contains("Type a sentence");
  }

  /**
   * The toggle: the main window's sentence runs with the selected head on FAVOR+. Checked against the
   * FAVOR+ map computed by hand from the intact q and k, and against a plain pass that patches that map
   * into the pattern (another intervention than the toggle's): the same maps, the same predictions.
   */
  @Test
  void theToggleRunsTheSentenceWithTheHeadOnFavorAndThePredictionsShowTheChange() {
    MainViewModel main = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    main.textAProperty().set("the cat sat on the [MASK] .");
    main.loadModel(tiny.toString());
    FavorViewModel vm = new FavorViewModel(main.session());
    BertModel model = main.session().model();
    AttentionTrace intact = main.traceProperty().get();
    vm.featureIndexProperty().set(0); // m = 16: far from exact
    vm.select(1, 2);
    assertThat(main.ablatedProperty().get()).isSameAs(intact);
    vm.predictionsOnFavorProperty().set(true);

    assertThat(main.session().favor()).isEqualTo(
        new FavorHeads(Set.of(new Head(1, 2)), 16, RandomFeatures.Kind.ORF, FavorViewModel.SEED, 0));
    AttentionTrace run = main.ablatedProperty().get();
    assertThat(run).isNotSameAs(intact);
    assertThat(main.traceProperty().get()).isSameAs(intact); // the intact pass is kept
    // layer 0 and the other heads of layer 1 are untouched: their maps are the intact ones, bit for bit
    for (int l = 0; l < 2; l++) {
      for (int h = 0; h < 3; h++) {
        if (l != 1 || h != 2) {
          assertThat(run.map(new Head(l, h))).isDeepEqualTo(intact.map(new Head(l, h)));
        }
      }
    }
    // head 2-3 ran the FAVOR+ map of its own (intact, since nothing below changed) queries and keys
    FavorInput in = FavorInput.capture(model, intact.encoding());
    double[][] w = FavorAnalysis.directions(FavorViewModel.SEED, 16, RandomFeatures.Kind.ORF, 1, 2, 0,
        model.config().headSize());
    double[][] byHand = Favor.map(in.q(1, 2), in.k(1, 2), w);
    float[][] shown = run.map(new Head(1, 2));
    int n = byHand.length;
    float[] patch = new float[3 * n * n];
    for (int h = 0; h < 3; h++) {
      float[][] a = h == 2 ? null : intact.map(new Head(1, h));
      for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
          if (h == 2) {
            assertThat((double) shown[i][j]).isCloseTo(byHand[i][j], within(1e-6));
          }
          patch[(h * n + i) * n + j] = h == 2 ? (float) byHand[i][j] : a[i][j];
        }
      }
    }
    // predictions: what a pass with that map patched in predicts, and marked as a change
    int mask = intact.predictions().get(0).position();
    float[] patched = model.run(RunRequest.of(intact.encoding())
        .intervene(new Intervention.Patch(HookPoint.pattern(1), new Activation(patch, new int[] {1, 3, n, n})))
        .read(Readouts.none().withLogProbs(new int[] {mask}))).logProbs()[0][0];
    PredictionRow row = main.predictionsProperty().get(0);
    assertThat(row.changed()).isTrue();
    long top = row.after().get(0).id();
    assertThat(Math.log(row.after().get(0).probability())).isCloseTo(patched[(int) top], within(1e-4));
    assertThat(main.statusProperty().get()).contains("1 head on FAVOR+ (m = 16, ORF, draw 1)");

    // the scope widens to the layer, m follows the slider, and off is every head exact again
    vm.scopeProperty().set(FavorViewModel.Scope.LAYER);
    vm.featureIndexProperty().set(4);
    assertThat(main.session().favor().heads()).hasSize(3);
    assertThat(main.session().favor().features()).isEqualTo(256);
    assertThat(vm.onFavor(1, 0)).isTrue();
    assertThat(vm.onFavor(0, 0)).isFalse();
    vm.scopeProperty().set(FavorViewModel.Scope.ALL);
    assertThat(main.session().favor().heads()).hasSize(6);
    vm.predictionsOnFavorProperty().set(false);
    assertThat(main.session().favor().isEmpty()).isTrue();
    assertThat(main.ablatedProperty().get()).isSameAs(main.traceProperty().get());
    assertThat(main.predictionsProperty().get(0).changed()).isFalse();
  }
}
