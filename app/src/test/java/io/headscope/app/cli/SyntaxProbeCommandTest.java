package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.analysis.linguistics.probes.ProbeCsv;
import io.headscope.model.testing.TinyBert;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code syntax --probe-train} through the real CLI on a small model the test writes. */
class SyntaxProbeCommandTest {
  @TempDir static Path dir;
  @TempDir Path work;
  static String model;

  @BeforeAll
  static void writeModel() {
    model = TinyBert.create(2, 3, 7).writeTo(dir.resolve("tiny")).config().getParent().toString();
  }

  /** A CoNLL-U sentence from "form head deprel" triples (ids in order). */
  private static String sentence(String id, String... words) {
    StringBuilder b = new StringBuilder("# sent_id = " + id + "\n");
    for (int i = 0; i < words.length; i++) {
      String[] f = words[i].split(" ");
      b.append(i + 1).append('\t').append(f[0]).append("\t_\tX\t_\t_\t").append(f[1]).append('\t').append(f[2])
          .append("\t_\t_\n");
    }
    return b.append('\n').toString();
  }

  // written for this test
  private static final String TRAIN = sentence("t1", "the 2 det", "cat 3 nsubj", "sat 0 root", "on 6 case",
      "the 6 det", "mat 3 obl")
      + sentence("t2", "a 2 det", "dog 3 nsubj", "ran 0 root", "home 3 obj")
      + sentence("t3", "my 2 nmod:poss", "sister 3 nsubj", "reads 0 root", "old 5 amod", "books 3 obj")
      + sentence("t4", "we 2 nsubj", "like 0 root", "green 4 amod", "tea 2 obj", ". 2 punct")
      + sentence("t5", "the 2 det", "bird 4 nsubj", "will 4 aux", "sing 0 root", "today 4 obl:tmod");
  private static final String TEST = sentence("s1", "the 2 det", "man 3 nsubj", "ate 0 root", "red 5 amod",
      "apples 3 obj")
      + sentence("s2", "she 2 nsubj", "sleeps 0 root")
      + sentence("s3", "a 2 det", "child 3 nsubj", "saw 0 root", "the 5 det", "sea 3 obj", ". 3 punct");
  private static final int TEST_WORDS = 5 + 2 + 6;

  private Path file(String name, String text) throws IOException {
    return Files.writeString(work.resolve(name), text, StandardCharsets.UTF_8);
  }

  private List<String> files() throws IOException {
    try (Stream<Path> s = Files.list(work)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void writesOneRowPerProbeBesideTheRelationsAndPrintsThem() throws IOException {
    Path train = file("train.conllu", TRAIN);
    Path test = file("test.conllu", TEST);
    Path out = work.resolve("rel.csv");
    CliHarness.Result r = CliHarness.run("syntax", "--model", model, "--treebank", test.toString(), "--probe-train",
        train.toString(), "--seed", "5", "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    List<String> rows = Files.readAllLines(work.resolve("rel-probes.csv"), StandardCharsets.UTF_8);
    assertThat(rows.get(0)).isEqualTo("probe,train_sentences,test_items,accuracy,l2,seed")
        .isEqualTo(String.join(",", ProbeCsv.HEADER));
    assertThat(rows).hasSize(3);
    String[] heads = rows.get(1).split(",", -1);
    assertThat(heads[0]).isEqualTo("head-selection");
    assertThat(heads[1]).isEqualTo("5");
    assertThat(heads[2]).isEqualTo(String.valueOf(TEST_WORDS));
    assertThat(Double.parseDouble(heads[3])).isBetween(0.0, 1.0);
    assertThat(heads[5]).isEqualTo("5");
    String[] edge = rows.get(2).split(",", -1);
    assertThat(edge[0]).isEqualTo("edge");
    assertThat(edge[1]).isEqualTo("5"); // every TRAIN tree has 4 words or more
    // s1: 4 arcs between words, s3: 5; s2 (2 words) cannot balance: 2 * (4 + 5) pairs
    assertThat(edge[2]).isEqualTo("18");
    assertThat(r.out()).contains("probe head-selection: UAS").contains("probe edge: accuracy")
        .contains("best single head");
    assertThat(files()).containsExactly("rel-best.csv", "rel-probes.csv", "rel.csv", "test.conllu", "train.conllu");
    // the same seed gives the same file
    CliHarness.Result again = CliHarness.run("syntax", "--model", model, "--treebank", test.toString(),
        "--probe-train", train.toString(), "--seed", "5", "--out", work.resolve("again.csv").toString());
    assertThat(again.exit()).as(again.err()).isZero();
    assertThat(Files.readAllLines(work.resolve("again-probes.csv"))).isEqualTo(rows);
  }

  @Test
  void aMissingTrainFileIsOneLineAndNoFile() throws IOException {
    Path test = file("test.conllu", TEST);
    CliHarness.Result r = CliHarness.run("syntax", "--model", model, "--treebank", test.toString(), "--probe-train",
        work.resolve("nope.conllu").toString(), "--out", work.resolve("rel.csv").toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.errLines()).as(r.err()).hasSize(1);
    assertThat(r.errLines().get(0)).startsWith("headscope: --probe-train: ").contains("nope.conllu")
        .contains("does not exist");
    assertThat(r.out()).isEmpty();
    assertThat(files()).containsExactly("test.conllu");
  }

  @Test
  void aCorruptOrEmptyTrainFileIsOneLineAndNoFile() throws IOException {
    Path test = file("test.conllu", TEST);
    for (String bad : new String[] {"", "1\tthe\t_\tX\t_\t_\tseven\tdet\t_\t_\n\n"}) {
      Path train = file("train.conllu", bad);
      CliHarness.Result r = CliHarness.run("syntax", "--model", model, "--treebank", test.toString(),
          "--probe-train", train.toString(), "--out", work.resolve("rel.csv").toString());
      assertThat(r.exit()).isEqualTo(1);
      assertThat(r.errLines()).as(r.err()).hasSize(1);
      assertThat(r.errLines().get(0)).startsWith("headscope: --probe-train: ").contains("no usable sentence");
      assertThat(files()).containsExactly("test.conllu", "train.conllu");
    }
  }

  @Test
  void aTrainFileTooSmallToHoldOutFailsAfterTheRunWithoutWritingAnything() throws IOException {
    // one usable sentence: nothing to hold out for the L2 choice; found only after the model ran
    Path train = file("train.conllu", sentence("t1", "the 2 det", "cat 3 nsubj", "sat 0 root", "down 3 advmod"));
    Path test = file("test.conllu", TEST);
    CliHarness.Result r = CliHarness.run("syntax", "--model", model, "--treebank", test.toString(), "--probe-train",
        train.toString(), "--out", work.resolve("rel.csv").toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.errLines().get(r.errLines().size() - 1)).startsWith("headscope: ").contains("train.conllu")
        .contains("at least 2");
    assertThat(r.err()).doesNotContain("Exception").doesNotContain("\tat ");
    assertThat(files()).containsExactly("test.conllu", "train.conllu");
  }
}
