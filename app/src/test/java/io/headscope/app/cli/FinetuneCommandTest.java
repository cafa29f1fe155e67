package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.testing.TinyBert;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ./headscope finetune on a tiny base model: the folder every command loads, and one line for bad input. */
class FinetuneCommandTest {
  @TempDir static Path models;
  @TempDir Path dir;
  static Path tiny;

  @BeforeAll
  static void write() {
    tiny = models.resolve("tiny");
    TinyBert.create(2, 2, 9).writeTo(tiny);
  }

  private Path file(String name, String... lines) throws Exception {
    Path f = dir.resolve(name);
    Files.write(f, List.of(lines));
    return f;
  }

  private static final String[] PAIRS = {"text_a\ttext_b\tlabel", "the cat sat .\tthe cat sat .\tsame",
      "a dog ran .\ta car ran .\tother", "the red house .\tthe red house .\tsame", "the man walk .\ta queen .\tother",
      "bad day\tbad day\tsame", "big city\tsmall mat\tother"};

  @Test
  void fineTuningABaseModelWritesAClassifierFolderThatPredictAndAttentionLoad() throws Exception {
    Path train = file("train.tsv", PAIRS);
    Path out = dir.resolve("pairs-model");
    CliHarness.Result r = CliHarness.run("finetune", "--model", tiny.toString(), "--train", train.toString(),
        "--dev", train.toString(), "--epochs", "2", "--batch", "4", "--lr", "1e-3", "--max-length", "8",
        "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.err()).contains("labels other, same").contains("epoch 1/2").contains("epoch 2/2")
        .contains("dev accuracy").contains("input(s) cut to 8 wordpieces");
    assertThat(Files.readString(out.resolve("config.json"))).contains("BertForSequenceClassification")
        .contains("\"0\" : \"other\"");
    CliHarness.Result predict = CliHarness.run("predict", "--model", out.toString(), "--text", "the cat sat .",
        "--pair", "the cat sat .");
    assertThat(predict.exit()).as(predict.err()).isZero();
    assertThat(predict.out()).contains("same").contains("other");
    CliHarness.Result heads = CliHarness.run("classify", "--model", out.toString(), "--text", "the cat sat .");
    assertThat(heads.exit()).as(heads.err()).isZero();

    CliHarness.Result again = CliHarness.run("finetune", "--model", tiny.toString(), "--train", train.toString(),
        "--epochs", "1", "--out", out.toString());
    assertThat(again.exit()).isEqualTo(1);
    assertThat(again.errLines()).containsExactly("headscope: " + out + " already exists; use --force to replace it.");
  }

  @Test
  void aMissingTrainingFileIsOneLineAndWritesNothing() {
    Path out = dir.resolve("m");
    CliHarness.Result r = CliHarness.run("finetune", "--model", tiny.toString(), "--train",
        dir.resolve("nope.tsv").toString(), "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isEqualTo(1);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.errLines().get(0)).contains("nope.tsv").contains("does not exist");
    assertThat(out).doesNotExist();
  }

  @Test
  void anOutputInAMissingFolderIsRefusedBeforeTraining() throws Exception {
    Path train = file("train.tsv", PAIRS);
    Path out = dir.resolve("no-such-folder").resolve("m");
    CliHarness.Result r = CliHarness.run("finetune", "--model", tiny.toString(), "--train", train.toString(),
        "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isEqualTo(1);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.errLines().get(0)).contains("does not exist");
    assertThat(dir.resolve("no-such-folder")).doesNotExist();
  }

  @Test
  void anOutputThatIsAFileIsRefusedEvenWithForce() throws Exception {
    Path train = file("train.tsv", PAIRS);
    Path out = file("taken", "not a model");
    CliHarness.Result r = CliHarness.run("finetune", "--model", tiny.toString(), "--train", train.toString(),
        "--out", out.toString(), "--force");
    assertThat(r.exit()).as(r.err()).isEqualTo(1);
    assertThat(r.errLines()).containsExactly("headscope: " + out + " is a regular file; give the name of a folder "
        + "to create.");
    assertThat(Files.readString(out)).isEqualTo("not a model\n");
  }

  @Test
  void aBaseModelWithAFileOfOneLabelIsOneLineAndWritesNothing() throws Exception {
    Path out = dir.resolve("m");
    for (String label : List.of("same", "0")) {
      Path train = file("one-" + label + ".tsv", "the cat sat .\t" + label, "a dog ran .\t" + label);
      CliHarness.Result r = CliHarness.run("finetune", "--model", tiny.toString(), "--train", train.toString(),
          "--out", out.toString());
      assertThat(r.exit()).as(r.err()).isEqualTo(1);
      assertThat(r.errLines()).hasSize(1);
      assertThat(r.errLines().get(0)).contains("only one label (" + label + ")").contains("at least two");
      assertThat(out).doesNotExist();
    }
  }

  @Test
  void badNumbersAreUsageErrors() throws Exception {
    Path train = file("train.tsv", PAIRS);
    CliHarness.Result r = CliHarness.run("finetune", "--model", tiny.toString(), "--train", train.toString(),
        "--lr", "0", "--out", dir.resolve("m").toString());
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.errLines()).containsExactly("headscope: --lr must be in (0, 1), got 0.0.");
  }
}
