package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.testing.TinyBert;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Inputs checked for meaning, not form (issue 39): a forward pass that goes non-finite stops every
 * command in one line (G07); a followed word the vocabulary lacks (G06) or a contrast that is the
 * target (G12) is refused by every command that follows a word, before any work and before any output.
 */
class MeaningChecksTest extends OnTinyModel {
  static Path huge;

  /**
   * Three layers; layer 2's feed-forward bias is 3e38 and its output weights 1: every output of that
   * sublayer is a sum of 6 terms of 3e38, +Inf whatever the order (every partial sum of two or more is
   * past float32's 3.4e38), and the LayerNorm after it makes NaN. Every weight is finite, so the load
   * check passes it (NonFiniteActivationTest derives the same in the engine).
   */
  @BeforeAll
  static void writeHugeModel() {
    huge = TinyBert.create(3, 2, 11)
        .edit("encoder.layer.1.intermediate.dense.bias", b -> Arrays.fill(b, 3e38f))
        .edit("encoder.layer.1.output.dense.weight", w -> Arrays.fill(w, 1f))
        .writeTo(dir.resolve("huge")).config().getParent();
  }

  static final String LAYER_2 = "The forward pass produced NaN/Inf at layer 2";

  @Test
  void hugeWeightsStopEveryCommandInOneLineNamingTheLayer() throws Exception {
    String m = huge.toString();
    String mask = "the cat sat on the [MASK] .";
    List<String[]> commands = List.of(
        new String[] {"predict", "--model", m, "--text", mask},
        new String[] {"lens", "--model", m, "--text", mask, "--target", "cat"},
        new String[] {"lens", "--model", m, "--text", mask, "--target", "cat", "--contrast", "dog", "--dla"},
        new String[] {"classify", "--model", m, "--text", "the cat sat on the mat ."},
        new String[] {"attention", "--model", m, "--text", "the cat sat on the mat ."},
        new String[] {"saliency", "--model", m, "--text", mask, "--target", "cat"},
        new String[] {"patch", "--model", m, "--clean", "the king sat and [MASK] ran .", "--corrupted",
            "the queen sat and [MASK] ran .", "--target", "she", "--contrast", "he"},
        new String[] {"ablate", "--model", m, "--text", mask, "--layers"});
    for (String[] args : commands) {
      Path out = dir.resolve("huge-" + args[0] + ".csv");
      Files.deleteIfExists(out);
      String[] withOut = java.util.stream.Stream.concat(Arrays.stream(args), java.util.stream.Stream.of("--out",
          out.toString())).toArray(String[]::new);
      CliHarness.Result r = CliHarness.run(withOut);
      String what = String.join(" ", args);
      assertThat(r.exit()).as(what + "\n" + r.err()).isEqualTo(1);
      assertThat(r.errLines()).as(what).hasSize(1);
      assertThat(r.errLines().get(0)).as(what).contains(LAYER_2);
      assertThat(r.err()).as(what).doesNotContain("Exception").doesNotContain("\tat ");
      assertThat(out).as(what + ": nothing written").doesNotExist();
    }
  }

  /** "猫" is a word of its own for BERT's text rules (CJK) and not in the tiny vocabulary: one [UNK]. */
  @Test
  void aFollowedWordOutsideTheVocabularyIsRefusedByEveryCommand() throws Exception {
    String m = model.toString();
    String mask = "the cat sat on the [MASK] .";
    List<String[]> commands = List.of(
        new String[] {"lens", "--model", m, "--text", mask, "--target", "猫"},
        new String[] {"lens", "--model", m, "--text", mask, "--target", "cat", "--contrast", "猫", "--dla"},
        new String[] {"saliency", "--model", m, "--text", mask, "--target", "猫"},
        new String[] {"patch", "--model", m, "--clean", "the king sat and [MASK] ran .", "--corrupted",
            "the queen sat and [MASK] ran .", "--target", "she", "--contrast", "猫"},
        new String[] {"ablate", "--model", m, "--text", mask, "--layers", "--target", "猫"});
    for (String[] args : commands) {
      refusedInOneLine(args, "'猫' is not in this model's vocabulary: it would be read as [UNK].");
    }
    // a word that splits into pieces is refused in the same words
    refusedInOneLine(new String[] {"lens", "--model", m, "--text", mask, "--target", "zzzz"},
        "'zzzz' is not in this model's vocabulary: it is 4 wordpieces (z ##z ##z ##z)");
  }

  @Test
  void aContrastThatIsTheTargetIsRefusedByEveryCommand() throws Exception {
    String m = model.toString();
    String mask = "the cat sat on the [MASK] .";
    List<String[]> commands = List.of(
        new String[] {"lens", "--model", m, "--text", mask, "--target", "cat", "--contrast", "Cat"},
        new String[] {"lens", "--model", m, "--text", mask, "--target", "cat", "--contrast", "cat", "--dla"},
        new String[] {"saliency", "--model", m, "--text", mask, "--target", "cat", "--contrast", "CAT"},
        new String[] {"patch", "--model", m, "--clean", "the king sat and [MASK] ran .", "--corrupted",
            "the queen sat and [MASK] ran .", "--target", "she", "--contrast", "she"},
        new String[] {"ablate", "--model", m, "--text", mask, "--layers", "--target", "cat", "--contrast",
            "cat"});
    for (String[] args : commands) {
      refusedInOneLine(args, "is the target");
    }
  }

  /** Python's json writes NaN: the command names the field it stands in (it was "not a JSON object"). */
  @Test
  void aNanInConfigJsonIsNamedAtItsField() throws Exception {
    Path nan = dir.resolve("nan");
    TinyBert.create(2, 2, 3).writeTo(nan);
    Path config = nan.resolve("config.json");
    Files.writeString(config, Files.readString(config).replaceFirst("\"layer_norm_eps\"\\s*:\\s*[^,}\\s]+",
        "\"layer_norm_eps\": NaN"));
    refusedInOneLine(new String[] {"attention", "--model", nan.toString(), "--text", "the cat"},
        "\"layer_norm_eps\" is NaN, not a finite number.");
  }

  private static void refusedInOneLine(String[] args, String expected) throws Exception {
    Path out = dir.resolve("refused-" + args[0] + ".csv");
    Files.deleteIfExists(out);
    String[] withOut = java.util.stream.Stream.concat(Arrays.stream(args), java.util.stream.Stream.of("--out",
        out.toString())).toArray(String[]::new);
    CliHarness.Result r = CliHarness.run(withOut);
    String what = String.join(" ", args);
    assertThat(r.exit()).as(what + "\n" + r.err()).isEqualTo(1);
    assertThat(r.errLines()).as(what).hasSize(1);
    assertThat(r.errLines().get(0)).as(what).contains(expected);
    assertThat(out).as(what + ": nothing written").doesNotExist();
  }
}
