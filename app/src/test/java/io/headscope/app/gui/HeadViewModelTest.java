package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.app.gui.exec.DirectWorker;
import io.headscope.app.gui.head.HeadViewModel;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.render.HeadMatrix.Display;
import io.headscope.app.render.HeadMatrix.PairFilter;
import io.headscope.app.render.HeadMatrix;
import io.headscope.model.AttentionTrace;
import io.headscope.model.core.Head;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HeadViewModelTest {
  @TempDir static Path dir;
  static MainViewModel main;
  static HeadViewModel vm;

  @BeforeAll
  static void load() {
    Path tiny = TinyBert.create(2, 2, 3).writeTo(dir.resolve("tiny")).config().getParent();
    main = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    main.textAProperty().set("the cat sat .");
    main.textBProperty().set("a dog ran on the mat .");
    main.loadModel(tiny.toString());
    vm = new HeadViewModel(main.session());
  }

  /** Hand-checked: A row (0.5, 0.5) with norms (1, 3) gives (0.5, 1.5) / 2 = (0.25, 0.75). */
  @ParameterizedTest
  @CsvSource({"0.5,0.5,1,3,0.25,0.75", "0.9,0.1,1,9,0.5,0.5", "0.2,0.8,2,0,1.0,0.0"})
  void normWeightedRowsFollowKobayashiAndSumToOne(float a0, float a1, float n0, float n1, float e0, float e1) {
    float[][] n = HeadMatrix.normWeighted(new float[][] {{a0, a1}}, new float[] {n0, n1});
    assertThat(n[0][0]).isCloseTo(e0, within(1e-6f));
    assertThat(n[0][1]).isCloseTo(e1, within(1e-6f));
  }

  @Test
  void thePairFilterCutsTheQueryAndKeySegments() {
    main.select(new Head(1, 0));
    AttentionTrace t = main.traceProperty().get();
    int b = t.encoding().secondStart();
    int n = t.tokens().size();
    vm.filterProperty().set(PairFilter.A_B);
    HeadMatrix m = vm.matrixProperty().get();
    assertThat(m.rows()).isEqualTo(b);
    assertThat(m.cols()).isEqualTo(n - b);
    assertThat(m.rowTokens().get(0)).isEqualTo("[CLS]");
    assertThat(m.colTokens().get(0)).isEqualTo("a");
    assertThat(m.values()[1][2]).isEqualTo(t.map(new Head(1, 0))[1][b + 2]);
    vm.filterProperty().set(PairFilter.B_A);
    assertThat(vm.matrixProperty().get().rowOffset()).isEqualTo(b);
    vm.filterProperty().set(PairFilter.ALL);
    assertThat(vm.matrixProperty().get().rows()).isEqualTo(n);
  }

  @Test
  void theNormViewFollowsTheTracesValueNormsAndHoverNamesBothTokens() {
    main.select(new Head(0, 1));
    vm.filterProperty().set(PairFilter.ALL);
    vm.displayProperty().set(Display.NORMS);
    AttentionTrace t = main.traceProperty().get();
    float[][] a = t.map(new Head(0, 1));
    float[] norms = t.valueNorms()[0][1];
    double sum = 0;
    for (int j = 0; j < a[2].length; j++) {
      sum += a[2][j] * norms[j];
    }
    HeadMatrix m = vm.matrixProperty().get();
    assertThat((double) m.values()[2][3]).isCloseTo(a[2][3] * norms[3] / sum, within(1e-6));
    vm.pointAt(2, 3);
    assertThat(vm.hoverProperty().get()).contains("1-2", "\"" + t.tokens().get(2) + "\"",
        "\"" + t.tokens().get(3) + "\"");
    vm.displayProperty().set(Display.WEIGHTS);
  }

  @Test
  void theWholeLayerDisplayIsKobayashisLayerMapOfTheSelectedHeadsLayer() {
    main.select(new Head(1, 1));
    vm.filterProperty().set(PairFilter.ALL);
    vm.displayProperty().set(Display.LAYER_NORMS);
    try {
      AttentionTrace t = main.traceProperty().get();
      float[][] expected = main.session().model().layerNormMaps(java.util.List.of(t.encoding()), io.headscope.model.core.HeadMask.NONE)
          .get(0)[1];
      float[][] shown = vm.matrixProperty().get().values();
      for (int i = 0; i < expected.length; i++) {
        for (int j = 0; j < expected.length; j++) {
          assertThat(shown[i][j]).isCloseTo(expected[i][j], within(1e-5f));
        }
      }
    } finally {
      vm.displayProperty().set(Display.WEIGHTS);
    }
  }

  /**
   * The head view's rollout is Abnar and Zuidema's, computed here from its definition with plain loops:
   * layer 1 is {@code 0.5 mean_h A + 0.5 I} (rows renormalised), layer 2 that of layer 2 times layer 1's.
   */
  @Test
  void theRolloutDisplayIsTheDefinitionComputedByHand() {
    vm.filterProperty().set(PairFilter.ALL);
    vm.displayProperty().set(Display.ROLLOUT);
    try {
      AttentionTrace t = main.traceProperty().get();
      int n = t.tokens().size();
      double[][][] ahat = new double[2][n][n];
      for (int l = 0; l < 2; l++) {
        for (int j = 0; j < n; j++) {
          double sum = 0;
          for (int i = 0; i < n; i++) {
            double mean = (t.map(new Head(l, 0))[j][i] + t.map(new Head(l, 1))[j][i]) / 2.0;
            ahat[l][j][i] = 0.5 * mean + (i == j ? 0.5 : 0);
            sum += ahat[l][j][i];
          }
          for (int i = 0; i < n; i++) {
            ahat[l][j][i] /= sum;
          }
        }
      }
      main.select(new Head(0, 1));
      HeadMatrix first = vm.matrixProperty().get();
      main.select(new Head(1, 0));
      HeadMatrix second = vm.matrixProperty().get();
      for (int j = 0; j < n; j++) {
        double rowSum = 0;
        for (int i = 0; i < n; i++) {
          double r2 = 0;
          for (int k = 0; k < n; k++) {
            r2 += ahat[1][j][k] * ahat[0][k][i];
          }
          assertThat((double) first.values()[j][i]).isCloseTo(ahat[0][j][i], within(1e-6));
          assertThat((double) second.values()[j][i]).isCloseTo(r2, within(1e-6));
          rowSum += second.values()[j][i];
        }
        assertThat(rowSum).isCloseTo(1.0, within(1e-5));
      }
      assertThat(second.describe(1, 2)).startsWith("2-1  query 1 \"the\" → key 2");
    } finally {
      vm.displayProperty().set(Display.WEIGHTS);
    }
  }
}
