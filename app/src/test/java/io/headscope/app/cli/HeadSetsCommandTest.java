package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@code --disable @NAME}: a head set saved from the app, spelled out by the CLI. */
class HeadSetsCommandTest extends OnTinyModel {

  private static CliHarness.Result withSets(Path file, String... args) {
    String old = System.getProperty("headscope.headsets");
    System.setProperty("headscope.headsets", file.toString());
    try {
      return CliHarness.run(args);
    } finally {
      if (old == null) {
        System.clearProperty("headscope.headsets");
      } else {
        System.setProperty("headscope.headsets", old);
      }
    }
  }

  @Test
  void predictWithANamedSetEqualsTheHeadsSpelledOut() throws Exception {
    Path sets = dir.resolve("sets-a.txt");
    Files.writeString(sets, "gender: 2-1, L1\n");
    String text = "the cat sat on the [MASK] .";
    var named = withSets(sets, "predict", "--model", model.toString(), "--text", text, "--disable", "@gender");
    var spelled = CliHarness.run("predict", "--model", model.toString(), "--text", text, "--disable", "2-1,1");
    assertThat(named.exit()).as(named.err()).isZero();
    assertThat(spelled.exit()).as(spelled.err()).isZero();
    assertThat(named.out()).isEqualTo(spelled.out());
    // and it is not the intact model's answer: the set really switched heads off
    var intact = CliHarness.run("predict", "--model", model.toString(), "--text", text);
    assertThat(named.out()).isNotEqualTo(intact.out());
  }

  @Test
  void anUnknownSetIsABadCommandLineInOneLineNamingTheKnownOnes() throws Exception {
    Path sets = dir.resolve("sets-b.txt");
    Files.writeString(sets, "gender: 2-1\nsyntax: 1-2\n");
    var run = withSets(sets, "predict", "--model", model.toString(), "--text", "a [MASK] .", "--disable", "@gendr");
    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.errLines()).hasSize(1);
    assertThat(run.err()).contains("--disable", "gendr", "known: gender, syntax");
  }
}
