package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.headscope.app.cli.HeadScopeCli;
import io.headscope.app.gui.exec.DirectWorker;
import io.headscope.app.gui.flow.FlowViewModel;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.render.HeadMatrix;
import io.headscope.app.render.figure.FigureFile;
import io.headscope.model.core.Head;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Information flow view's state without a window, against {@code headscope rollout --flow} run on
 * its own (its own model, its own trace): the same numbers drawn, the same JSON bytes exported.
 */
class FlowViewModelTest {
  static final String TEXT = "the cat sat on the mat .";
  @TempDir static Path dir;
  static Path tiny;

  @BeforeAll
  static void model() {
    tiny = TinyBert.create(3, 4, 19).writeTo(dir.resolve("tiny")).config().getParent();
  }

  private static MainViewModel main() {
    MainViewModel vm = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    vm.textAProperty().set(TEXT);
    vm.loadModel(tiny.toString());
    return vm;
  }

  private static JsonNode cli(Path out, String... extra) throws Exception {
    String[] args = {"rollout", "--model", tiny.toString(), "--text", TEXT, "--flow", "--out", out.toString()};
    String[] all = java.util.stream.Stream.concat(java.util.Arrays.stream(args), java.util.Arrays.stream(extra))
        .toArray(String[]::new);
    assertThat(HeadScopeCli.run(all)).isZero();
    return new ObjectMapper().readTree(out.toFile());
  }

  @Test
  void theDrawnMatricesAreTheCommandsAndTheJsonIsItsBytes() throws Exception {
    MainViewModel main = main();
    FlowViewModel vm = new FlowViewModel(main.session());
    assertThat(vm.matrixProperty().get()).isNull();
    vm.compute();
    assertThat(vm.layerProperty().get()).as("the last layer first").isEqualTo(3);
    JsonNode json = cli(dir.resolve("cli.json"));
    vm.layerProperty().set(2);
    HeadMatrix m = vm.matrixProperty().get();
    assertThat(m.rowTokens()).hasSize(json.get("tokens").size());
    for (int j = 0; j < m.rows(); j++) {
      for (int i = 0; i < m.cols(); i++) {
        assertThat((double) m.values()[j][i]).isCloseTo(json.get("rollout").get(1).get(j).get(i).asDouble(), within(1e-6));
      }
    }
    assertThat(vm.describe(1, 2)).startsWith("rollout after layer 2: output 1 \"the\" ← input 2 \"cat\": ");
    vm.showProperty().set(FlowViewModel.Show.FLOW);
    m = vm.matrixProperty().get();
    assertThat((double) m.values()[3][1]).isCloseTo(json.get("flowNormalized").get(3).get(1).asDouble(), within(1e-6));
    vm.showProperty().set(FlowViewModel.Show.FLOW_RAW);
    assertThat((double) vm.matrixProperty().get().values()[3][1]).isCloseTo(json.get("flow").get(3).get(1).asDouble(),
        within(1e-6));

    Path app = dir.resolve("app.json");
    FlowViewModel.writeJson(vm.resultProperty().get(), app);
    assertThat(Files.readAllBytes(app)).isEqualTo(Files.readAllBytes(dir.resolve("cli.json")));

    Path svg = dir.resolve("flow.svg");
    FigureFile.write(vm.figure(), svg, FigureFile.Format.SVG, 1);
    assertThat(Files.readString(svg)).contains("attention flow into the last layer (raw max-flow)");
  }

  @Test
  void withAHeadSwitchedOffItIsTheRolloutOfTheMapsAsRun() throws Exception {
    MainViewModel main = main();
    main.toggleHead(new Head(1, 0));
    FlowViewModel vm = new FlowViewModel(main.session());
    vm.compute();
    Path app = dir.resolve("app-off.json");
    FlowViewModel.writeJson(vm.resultProperty().get(), app);
    JsonNode json = cli(dir.resolve("cli-off.json"), "--disable", "2-1");
    assertThat(json.get("maps").asText()).isEqualTo("as-run");
    assertThat(Files.readAllBytes(app)).isEqualTo(Files.readAllBytes(dir.resolve("cli-off.json")));
    // and it differs from the intact rollout: the switch matters
    JsonNode intact = cli(dir.resolve("cli-intact.json"));
    assertThat(json.get("rollout").get(2)).isNotEqualTo(intact.get("rollout").get(2));
  }

  @Test
  void theJacobianIsTheCommandsEstimateWithItsCorrelationsShown() throws Exception {
    MainViewModel main = main();
    FlowViewModel vm = new FlowViewModel(main.session());
    vm.layerProperty().set(2);
    vm.computeJacobian();
    assertThat(vm.showProperty().get()).isEqualTo(FlowViewModel.Show.JACOBIAN);
    Path out = dir.resolve("cli-jacobian.json");
    assertThat(HeadScopeCli.run("jacobian", "--model", tiny.toString(), "--text", TEXT, "--samples", "32",
        "--out", out.toString())).isZero();
    JsonNode json = new ObjectMapper().readTree(out.toFile());
    assertThat(json.get("method").asText()).isEqualTo("random-projection");
    HeadMatrix m = vm.matrixProperty().get();
    for (int j = 0; j < m.rows(); j++) {
      for (int i = 0; i < m.cols(); i++) {
        assertThat((double) m.values()[j][i]).isCloseTo(json.get("jacobian").get(1).get(j).get(i).asDouble(),
            within(1e-5 * Math.max(1, Math.abs(m.values()[j][i]))));
      }
    }
    JsonNode c = json.get("correlations").get(1);
    String text = vm.correlationProperty().get();
    assertThat(text).startsWith("Layer 2, off the diagonal: ");
    for (String field : new String[] {"spearmanAttention", "pearsonAttention", "spearmanNorm", "pearsonNorm"}) {
      assertThat(text).contains(String.format(java.util.Locale.ROOT, "%.3f", c.get(field).asDouble()));
    }
    Path app = dir.resolve("app-jacobian.json");
    FlowViewModel.writeJacobianJson(vm.modelName(), vm.jacobianProperty().get(), app);
    assertThat(Files.readAllBytes(app)).isEqualTo(Files.readAllBytes(out));
    // rollout is another choice of the same view: the correlation is the Jacobian's only
    vm.showProperty().set(FlowViewModel.Show.ROLLOUT);
    assertThat(vm.correlationProperty().get()).isEmpty();
  }
}
