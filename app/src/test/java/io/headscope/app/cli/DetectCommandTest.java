package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.analysis.circuits.HeadDetectors;
import io.headscope.model.BertModel;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code detect}: one row per head with the three scores the service gives; bad numbers are one line. */
class DetectCommandTest extends OnTinyModel {

  @Test
  void oneRowPerHeadOneBasedWithTheServicesScores() throws Exception {
    Path out = dir.resolve("detect.csv");
    CliHarness.Result r = CliHarness.run("detect", "--model", model.toString(), "--length", "6", "--inputs", "2",
        "--seed", "3", "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.err()).contains("induction: highest");
    List<String> lines = Files.readAllLines(out);
    assertThat(lines.get(0)).isEqualTo("layer,head,previous_token,duplicate_token,induction");
    assertThat(lines).hasSize(1 + 2 * 2);
    try (BertModel m = BertModel.load(TinyBert.create(2, 2, 3).writeTo(dir.resolve("detect-again")))) {
      HeadDetectors.Result want = HeadDetectors.detect(m, 6, 2, 3);
      String[] last = lines.get(4).split(",");
      assertThat(last[0]).isEqualTo("2");
      assertThat(last[1]).isEqualTo("2");
      assertThat(Double.parseDouble(last[2])).isCloseTo(want.score(HeadDetectors.Kind.PREVIOUS_TOKEN, 1, 1), within(1e-6));
      assertThat(Double.parseDouble(last[4])).isCloseTo(want.score(HeadDetectors.Kind.INDUCTION, 1, 1), within(1e-6));
    }
  }

  @Test
  void aLengthUnderTwoIsOneLineExitTwoAndNoFile() {
    Path out = dir.resolve("detect-refused.csv");
    CliHarness.Result r = CliHarness.run("detect", "--model", model.toString(), "--length", "1", "--out", out.toString());
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.errLines()).hasSize(1);
    assertThat(out).doesNotExist();
  }
}
