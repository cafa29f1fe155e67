package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code --disable L2} on the command line: all of layer 2, as {@code 2} and {@code 2-*}. */
class WholeLayerOptionTest extends OnTinyModel {
  private CliHarness.Result predict(String disable) {
    return CliHarness.run("predict", "--model", model.toString(), "--text", "the cat sat on the [MASK] .",
        "--disable", disable);
  }

  @Test
  void l2DisablesWhatTwoAndTwoStarDisable() {
    CliHarness.Result l2 = predict("1-1,L2");
    assertThat(l2.exit()).as(l2.err()).isZero();
    assertThat(l2.out()).contains("\"2-1\"", "\"2-2\"").isEqualTo(predict("1-1,2").out()).isEqualTo(predict("1-1,2-*").out());
  }

  @Test
  void aLayerPastTheModelIsAUsageError() {
    CliHarness.Result r = predict("L3");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("--disable: There is no layer 3 in \"L3\"");
  }
}
