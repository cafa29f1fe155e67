package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.analysis.export.HeadCsv;
import io.headscope.analysis.export.TokenTypeCsv;
import io.headscope.model.testing.TinyBert;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code classify} and {@code token-types} through the real CLI on a small model the test writes. */
class CorpusCommandsTest {
  @TempDir static Path dir;
  @TempDir Path work;
  static String model;

  @BeforeAll
  static void writeModel() {
    model = TinyBert.create(3, 4, 7).writeTo(dir.resolve("tiny")).config().getParent().toString();
  }

  private Path corpus(String... lines) throws IOException {
    Path f = work.resolve("corpus.txt");
    Files.writeString(f, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
    return f;
  }

  private static List<String> csv(Path f) throws IOException {
    return Files.readAllLines(f, StandardCharsets.UTF_8);
  }

  @Test
  void classifyOneInputWritesOneRowPerHeadUnderTheDocumentedHeader() throws IOException {
    Path out = work.resolve("heads.csv");
    CliHarness.Result r = CliHarness.run("classify", "--model", model, "--text", "the cat sat on the mat.",
        "--pair", "a dog ran.", "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    List<String> lines = csv(out);
    assertThat(lines.get(0)).isEqualTo(String.join(",", HeadCsv.HEADER));
    assertThat(lines.get(0)).startsWith("layer,head,category,confidence,vertical,diagonal,block,heterogeneous,");
    assertThat(lines).hasSize(1 + 3 * 4);
    assertThat(lines.get(1)).startsWith("1,1,");
    assertThat(lines.get(12)).startsWith("3,4,");
    assertThat(lines.get(5).split(",", -1)).hasSize(HeadCsv.HEADER.size());
    assertThat(r.err()).contains("1 of 1 inputs (100%)").contains("wrote " + out);
  }

  @Test
  void classifyOneOverLongInputIsCutWithAWarningNotRefused() throws IOException {
    // a corpus line this long is skipped (see below); one typed input is cut, as attention and predict do
    Path out = work.resolve("heads.csv");
    CliHarness.Result r = CliHarness.run("classify", "--model", model, "--text",
        "the cat sat on the mat . ".repeat(20), "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.err()).contains("warning").contains("wordpieces were dropped");
    assertThat(csv(out)).hasSize(1 + 3 * 4);
  }

  @Test
  void aLineWithNothingLeftAfterTextCleaningIsSkippedAndReportedNotFatal() throws IOException {
    // not blank to String.isBlank, but empty once BERT drops zero-width and control characters
    Path in = corpus("the cat sat.", "\u200b", "a dog\u0001", "\u0002\u0003", "the end.");
    Path out = work.resolve("heads.csv");
    CliHarness.Result r = CliHarness.run("classify", "--model", model, "--corpus", in.toString(),
        "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.err()).contains("line 2").contains("line 4");
    assertThat(csv(out).get(1).split(",", -1)[HeadCsv.HEADER.indexOf("inputs")]).isEqualTo("3");
  }

  @Test
  void aCorpusFolderIsNamedAsAFolder() {
    CliHarness.Result r = CliHarness.run("ablate", "--model", model, "--corpus", work.toString(), "--out",
        work.resolve("a.csv").toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.errLines()).last().asString().contains("is a folder");
  }

  @Test
  void anUnknownGeluNamesTheOption() {
    CliHarness.Result r = CliHarness.run("attention", "--model", model, "--text", "the cat", "--gelu", "relu");
    assertThat(r.exit()).as("a bad option value is a command-line error").isEqualTo(2);
    assertThat(r.errLines()).last().asString().contains("--gelu").doesNotContain("config.json");
  }

  @Test
  void predictSaysWhenTheMaskWasCutOff() {
    CliHarness.Result r = CliHarness.run("predict", "--model", model, "--text",
        "the cat sat on the mat . ".repeat(20) + "the [MASK] ran .");
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.errLines()).last().asString().contains("[MASK] lies beyond the model's").contains("cut off");
  }

  @Test
  void classifyCorpusReportsSkippedLinesAndCountsTheRest() throws IOException {
    String tooLong = "the cat sat on the mat . ".repeat(20);
    Path in = corpus("the cat sat.", "", "a dog ran.\tthe cat sat.", tooLong, "one\ttwo\tthree", "the end.");
    Path out = work.resolve("heads.csv");
    CliHarness.Result r = CliHarness.run("classify", "--model", model, "--corpus", in.toString(),
        "--out", out.toString(), "--batch", "2");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.err()).contains("line 2: blank line; skipped").contains("line 4: longer than the model's 64")
        .contains("line 5: 2 tabs");
    List<String> lines = csv(out);
    assertThat(lines).hasSize(13);
    // inputs column: three usable lines
    assertThat(lines.get(1).split(",", -1)[HeadCsv.HEADER.indexOf("inputs")]).isEqualTo("3");
  }

  /**
   * A RoBERTa's token-types columns are named by its own specials, {@code <s>} and {@code </s>} (they said cls and
   * sep, tokens a RoBERTa does not have), in a single run and in a merge of shards alike; BERT's header stays as
   * documented (the test above).
   */
  @Test
  void tokenTypesNamesTheSpecialColumnsAsTheModelSpellsThem() throws IOException {
    Path roberta = work.resolve("roberta");
    io.headscope.model.testing.families.FamilyModelFolders.write("roberta", roberta, 5);
    Path in = corpus("the cat sat.", "a dog ran.", "the end, then.", "a cat.");
    Path single = work.resolve("single.csv");
    CliHarness.Result r = CliHarness.run("token-types", "--model", roberta.toString(), "--corpus", in.toString(),
        "--batch", "1", "--out", single.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    String header = "layer,<s>,</s>,punct,other,norm_<s>,norm_</s>,norm_punct,norm_other,inputs";
    assertThat(csv(single).get(0)).isEqualTo(header);
    for (int k = 0; k < 2; k++) {
      CliHarness.Result part = CliHarness.run("token-types", "--model", roberta.toString(), "--corpus", in.toString(),
          "--batch", "1", "--shard", k + "/2", "--out", work.resolve("tt-" + k + ".jsonl").toString());
      assertThat(part.exit()).as(part.err()).isZero();
    }
    Path merged = work.resolve("merged.csv");
    CliHarness.Result m = CliHarness.run("merge", work.resolve("tt-0.jsonl").toString(),
        work.resolve("tt-1.jsonl").toString(), "--out", merged.toString());
    assertThat(m.exit()).as(m.err()).isZero();
    assertThat(csv(merged)).as("the merge names the columns as the single run, with its numbers")
        .isEqualTo(csv(single));
  }

  @Test
  void tokenTypesWritesOneRowPerLayer() throws IOException {
    Path out = work.resolve("layers.csv");
    CliHarness.Result r = CliHarness.run("token-types", "--model", model, "--corpus",
        corpus("the cat sat.", "a dog ran.\tthe end.").toString(), "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    List<String> lines = csv(out);
    assertThat(lines.get(0)).isEqualTo(String.join(",", TokenTypeCsv.HEADER));
    assertThat(lines.get(0)).startsWith("layer,cls,sep,punct,other,norm_cls,norm_sep,norm_punct,norm_other");
    assertThat(lines).hasSize(4);
    for (int l = 1; l <= 3; l++) {
      String[] f = lines.get(l).split(",");
      assertThat(f[0]).isEqualTo(String.valueOf(l));
      double w = 0;
      double n = 0;
      for (int i = 1; i <= 4; i++) {
        w += Double.parseDouble(f[i]);
        n += Double.parseDouble(f[i + 4]);
      }
      assertThat(w).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-5));
      assertThat(n).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-5));
    }
  }

  @Test
  void anExistingFileIsKeptWithoutForceAndReplacedWithIt() throws IOException {
    Path out = work.resolve("layers.csv");
    Files.writeString(out, "keep me");
    Path in = corpus("the cat sat.");
    CliHarness.Result refused = CliHarness.run("token-types", "--model", model, "--corpus", in.toString(),
        "--out", out.toString());
    assertThat(refused.exit()).isEqualTo(1);
    assertThat(refused.errLines()).hasSize(1);
    assertThat(refused.errLines().get(0)).startsWith("headscope: ").contains("already exists").contains("--force");
    assertThat(Files.readString(out)).isEqualTo("keep me");

    CliHarness.Result forced = CliHarness.run("token-types", "--model", model, "--corpus", in.toString(),
        "--out", out.toString(), "--force");
    assertThat(forced.exit()).as(forced.err()).isZero();
    assertThat(Files.readString(out)).startsWith("layer,cls,");
  }

  @Test
  void badInputsFailWithOneLineAndLeaveNoFile() throws IOException {
    Path out = work.resolve("heads.csv");
    Path latin1 = work.resolve("latin1.txt");
    Files.write(latin1, new byte[] {'c', 'a', 'f', (byte) 0xE9, '\n'});
    List<String[]> cases = List.of(
        new String[] {"classify", "--model", model, "--out", out.toString()},
        new String[] {"classify", "--model", model, "--text", "a", "--corpus", latin1.toString(), "--out", out.toString()},
        new String[] {"classify", "--model", model, "--corpus", work.resolve("missing.txt").toString(), "--out", out.toString()},
        new String[] {"classify", "--model", model, "--corpus", latin1.toString(), "--out", out.toString()},
        new String[] {"classify", "--model", model, "--text", "   ", "--out", out.toString()},
        new String[] {"classify", "--model", model, "--corpus", corpus("", " ").toString(), "--out", out.toString()},
        new String[] {"classify", "--model", model, "--text", "the cat.", "--out", work.resolve("no/such/dir.csv").toString()},
        new String[] {"classify", "--model", work.resolve("nomodel").toString(), "--text", "the cat.", "--out", out.toString()},
        new String[] {"token-types", "--model", model, "--corpus", latin1.toString(), "--out", out.toString(), "--batch", "0"});
    // options that do not go together or values out of range are command-line errors (2), the rest bad input (1)
    java.util.Set<Integer> commandLineErrors = java.util.Set.of(0, 1, 8);
    for (int i = 0; i < cases.size(); i++) {
      String[] args = cases.get(i);
      CliHarness.Result r = CliHarness.run(args);
      assertThat(r.exit()).as(String.join(" ", args)).isEqualTo(commandLineErrors.contains(i) ? 2 : 1);
      assertThat(r.errLines()).as(r.err()).hasSize(1);
      assertThat(r.errLines().get(0)).startsWith("headscope: ").doesNotContain("Exception");
      try (var files = Files.list(work)) {
        assertThat(files.map(p -> p.getFileName().toString()))
            .as(String.join(" ", args)).doesNotContain("heads.csv").noneMatch(n -> n.endsWith(".part"));
      }
    }
  }

  @Test
  void withoutOutTheCsvGoesToStandardOutputAsTheFileWouldHoldIt() throws IOException {
    Path file = work.resolve("to-file.csv");
    CliHarness.Result toFile = CliHarness.run("classify", "--model", model, "--text", "the cat sat .", "--out", file.toString());
    CliHarness.Result toStdout = CliHarness.run("classify", "--model", model, "--text", "the cat sat .");
    assertThat(toFile.exit()).isZero();
    assertThat(toStdout.exit()).isZero();
    assertThat(toStdout.out()).isEqualTo(Files.readString(file));
    Path corpus = corpus("the cat sat .", "a dog ran .");
    Path layers = work.resolve("layers.csv");
    CliHarness.run("token-types", "--model", model, "--corpus", corpus.toString(), "--out", layers.toString());
    CliHarness.Result tt = CliHarness.run("token-types", "--model", model, "--corpus", corpus.toString());
    assertThat(tt.out()).isEqualTo(Files.readString(layers));
    Files.delete(file);
    Files.delete(layers);
  }
}
