package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.analysis.circuits.CompositionResult;
import io.headscope.analysis.circuits.CompositionScores;
import io.headscope.model.BertModel;
import io.headscope.model.engine.CompositionNorms.Mode;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code composition}: issue 43's CSV contract, the numbers the service gives, one-line refusals. */
class CompositionCommandTest extends OnTinyModel {

  @Test
  void everyPairWithTheSenderInAnEarlierLayerOneBasedWithItsScore() throws Exception {
    Path three = TinyBert.create(3, 2, 8).writeTo(dir.resolve("three")).config().getParent();
    for (String mode : List.of("q", "k", "v")) {
      Path out = dir.resolve("comp-" + mode + ".csv");
      CliHarness.Result r = CliHarness.run("composition", "--mode", mode, "--model", three.toString(), "--out",
          out.toString());
      assertThat(r.exit()).as(r.err()).isZero();
      assertThat(r.err()).contains("random matrices of these shapes score");
      List<String> lines = Files.readAllLines(out);
      assertThat(lines.get(0)).isEqualTo("sender_layer,sender_head,receiver_layer,receiver_head,score");
      assertThat(lines).hasSize(1 + 3 * 2 * 2);
      try (BertModel m = BertModel.load(TinyBert.create(3, 2, 8).writeTo(dir.resolve("again-" + mode)))) {
        CompositionResult want = CompositionScores.of(m, Mode.valueOf(mode.toUpperCase()));
        for (String line : lines.subList(1, lines.size())) {
          String[] f = line.split(",");
          int l1 = Integer.parseInt(f[0]) - 1;
          int l2 = Integer.parseInt(f[2]) - 1;
          assertThat(l1).isLessThan(l2);
          assertThat(Double.parseDouble(f[4])).isCloseTo(
              want.score(l1, Integer.parseInt(f[1]) - 1, l2, Integer.parseInt(f[3]) - 1), within(1e-9));
        }
      }
    }
  }

  @Test
  void anUnknownModeIsOneLineExitTwoAndNoFile() {
    Path out = dir.resolve("comp-refused.csv");
    CliHarness.Result r = CliHarness.run("composition", "--mode", "o", "--model", model.toString(), "--out",
        out.toString());
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("use q, k or v").doesNotContain("Exception");
    assertThat(out).doesNotExist();
  }
}
