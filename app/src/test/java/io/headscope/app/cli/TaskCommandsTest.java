package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.analysis.ablation.PruneCsv;
import io.headscope.analysis.ablation.TaskAblationCsv;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.engine.Intervention;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ablate --task, importance --task and prune on small classifier folders the test writes, to real CSVs. */
class TaskCommandsTest {
  @TempDir static Path models;
  @TempDir Path dir;
  static Path classifier;
  static Path tiny;
  static Path labelled;
  static String[][] rows = {
      {"the cat sat on the mat .", null, "pos"}, {"a dog ran in the city", null, "neg"},
      {"she was a queen", "he was a king", "pos"}, {"big red car", null, "1"},
      {"the man is in paris", "the woman is in france", "neg"}, {"hello world !", null, "0"},
      {"they walk at night", "we run in the day", "pos"}, {"it is good", null, "neg"}};

  @BeforeAll
  static void write() throws Exception {
    classifier = models.resolve("sentiment");
    TinyBert.create(2, 3, 23).withClassifier("neg", "pos").edit("classifier.weight", w -> {
      for (int i = 0; i < w.length; i++) {
        w[i] *= 8; // predictions spread over both classes
      }
    }).writeTo(classifier);
    tiny = models.resolve("tiny");
    TinyBert.create(2, 3, 17).writeTo(tiny);
    StringBuilder b = new StringBuilder("text\tlabel\n");
    for (String[] r : rows) {
      b.append(r[0]).append(r[1] == null ? "" : "\t" + r[1]).append('\t').append(r[2]).append('\n');
    }
    b.append("a line with an unknown label\tmaybe\n");
    labelled = Files.writeString(models.resolve("labelled.tsv"), b.toString());
  }

  /** Plain passes, one input and one mask at a time: the accuracy with {@code off} switched off. */
  static double plainAccuracy(Set<Head> off) {
    try (BertModel m = BertModel.load(new ModelFiles("sentiment", classifier.resolve("config.json"),
        classifier.resolve("model.safetensors"), classifier.resolve("tokenizer.json")))) {
      int correct = 0;
      for (String[] r : rows) {
        RunRequest q = RunRequest.of(m.encode(r[0], r[1])).read(Readouts.none().withClassifier());
        Intervention masks = Intervention.heads(HeadMask.of(off, HeadMask.Mode.ZERO), m.config());
        float[] p = m.run(q.intervene(masks)).classProbabilities()[0];
        int gold = r[2].equals("pos") || r[2].equals("1") ? 1 : 0;
        correct += (p[1] > p[0] ? 1 : 0) == gold ? 1 : 0;
      }
      return correct / (double) rows.length;
    }
  }

  @Test
  void ablateTaskWritesEveryHeadAndLayerWithPlainPassAccuracies() throws Exception {
    Path out = dir.resolve("task-ablation.csv");
    var run = AblationCommandsTest.cli("ablate", "--model", classifier.toString(), "--corpus", labelled.toString(),
        "--task", "--layers", "--batch", "3", "--out", out.toString());
    assertThat(run.code()).as(run.err()).isZero();
    assertThat(Files.readAllLines(out).get(0)).isEqualTo(String.join(",", TaskAblationCsv.HEADER));
    List<CSVRecord> csv = AblationCommandsTest.csv(out);
    assertThat(csv).hasSize(2 * 4);
    assertThat(csv.get(3).get("head")).isEqualTo("*");
    assertThat(csv.get(0).get("inputs")).isEqualTo("8");
    assertThat(Double.parseDouble(csv.get(0).get("baseline_accuracy"))).isCloseTo(plainAccuracy(Set.of()),
        within(1e-9));
    CSVRecord h23 = csv.get(4 + 2);
    assertThat(h23.get("layer") + "-" + h23.get("head")).isEqualTo("2-3");
    assertThat(Double.parseDouble(h23.get("ablated_accuracy"))).isCloseTo(plainAccuracy(Set.of(new Head(1, 2))),
        within(1e-9));
    Set<Head> layer1 = new HashSet<>(Head.parseList("1", 2, 3));
    assertThat(Double.parseDouble(csv.get(3).get("ablated_accuracy"))).isCloseTo(plainAccuracy(layer1), within(1e-9));
    // the summary's counts are those of the CSV's head rows
    long up = csv.stream().filter(r -> !r.get("head").equals("*"))
        .filter(r -> Double.parseDouble(r.get("delta_accuracy")) > 0).count();
    assertThat(run.err()).contains(up + " of 6 heads help when removed").contains("one-sided p = ")
        .contains("line 10").contains("maybe");
  }

  @Test
  void shardsOfTheTaskSweepMergeIntoTheFileOneRunWrites() throws Exception {
    // at the default batch: inputs of one length are swept together, and batch invariance makes each
    // input's numbers the same in a shard's groups as in one run's
    Path whole = dir.resolve("whole.csv");
    assertThat(AblationCommandsTest.cli("ablate", "--model", classifier.toString(), "--corpus", labelled.toString(),
        "--task", "--out", whole.toString()).code()).isZero();
    for (int k = 0; k < 2; k++) {
      var r = AblationCommandsTest.cli("ablate", "--model", classifier.toString(), "--corpus", labelled.toString(),
          "--task", "--shard", k + "/2", "--out", dir.resolve("part" + k).toString());
      assertThat(r.code()).as(r.err()).isZero();
    }
    Path merged = dir.resolve("merged.csv");
    var m = AblationCommandsTest.cli("merge", dir.resolve("part1").toString(), dir.resolve("part0").toString(),
        "--out", merged.toString());
    assertThat(m.code()).as(m.err()).isZero();
    assertThat(Files.readAllBytes(merged)).isEqualTo(Files.readAllBytes(whole));
  }

  @Test
  void shardsOfTaskImportanceMergeIntoTheFileOneRunWrites() throws Exception {
    Path whole = dir.resolve("whole-importance.csv");
    var w = AblationCommandsTest.cli("importance", "--model", classifier.toString(), "--corpus", labelled.toString(),
        "--task", "--out", whole.toString());
    assertThat(w.code()).as(w.err()).isZero();
    for (int k = 0; k < 3; k++) {
      var r = AblationCommandsTest.cli("importance", "--model", classifier.toString(), "--corpus", labelled.toString(),
          "--task", "--shard", k + "/3", "--out", dir.resolve("ipart" + k).toString());
      assertThat(r.code()).as(r.err()).isZero();
    }
    Path merged = dir.resolve("merged-importance.csv");
    var m = AblationCommandsTest.cli("merge", dir.resolve("ipart2").toString(), dir.resolve("ipart0").toString(),
        dir.resolve("ipart1").toString(), "--out", merged.toString());
    assertThat(m.code()).as(m.err()).isZero();
    // the gradients in batches of 32 (one batch in one run, smaller ones in shards): equal to float rounding
    List<CSVRecord> a = AblationCommandsTest.csv(whole);
    List<CSVRecord> b = AblationCommandsTest.csv(merged);
    assertThat(b).hasSameSizeAs(a);
    for (int i = 0; i < a.size(); i++) {
      assertThat(Double.parseDouble(b.get(i).get("importance")))
          .isCloseTo(Double.parseDouble(a.get(i).get("importance")), within(1e-5));
      assertThat(Double.parseDouble(b.get(i).get("sweep_delta_logprob")))
          .isCloseTo(Double.parseDouble(a.get(i).get("sweep_delta_logprob")), within(1e-5));
    }
  }

  @Test
  void aModelWithoutAClassifierOrACorpusWithoutLabelsGetsOneLine() throws Exception {
    var noHead = CliHarness.run("ablate", "--model", tiny.toString(), "--corpus", labelled.toString(), "--task");
    assertThat(noHead.exit()).isNotZero();
    assertThat(noHead.errLines()).hasSize(1);
    assertThat(noHead.err()).contains("no sequence-classification head");
    Path text = Files.writeString(dir.resolve("text.txt"), "the cat sat on the mat .\nhello world\n");
    var noLabels = CliHarness.run("ablate", "--model", classifier.toString(), "--corpus", text.toString(), "--task",
        "--out", dir.resolve("x.csv").toString());
    assertThat(noLabels.exit()).isNotZero();
    assertThat(noLabels.err()).contains("no usable line");
    assertThat(dir.resolve("x.csv")).doesNotExist();
  }

  @Test
  void randomPruningIsReproducibleAndEachStepIsAPlainPassWithItsHeadsOff() throws Exception {
    Path a = dir.resolve("a.csv");
    Path b = dir.resolve("b.csv");
    for (Path p : List.of(a, b)) {
      var r = AblationCommandsTest.cli("prune", "--model", classifier.toString(), "--corpus", labelled.toString(),
          "--order", "random", "--seed", "5", "--step", "0.25", "--out", p.toString());
      assertThat(r.code()).as(r.err()).isZero();
    }
    assertThat(Files.readAllBytes(a)).isEqualTo(Files.readAllBytes(b));
    assertThat(Files.readAllLines(a).get(0)).isEqualTo(String.join(",", PruneCsv.HEADER));
    List<CSVRecord> steps = AblationCommandsTest.csv(a);
    // 6 heads, 25% a step: round half up of 1.5, 3, 4.5, 6
    assertThat(steps).extracting(r -> r.get("heads_pruned")).containsExactly("0", "2", "3", "5", "6");
    assertThat(steps.get(0).get("pruned_heads")).isEmpty();
    for (CSVRecord s : steps) {
      Set<Head> off = s.get("pruned_heads").isEmpty() ? Set.of()
          : new HashSet<>(Head.parseList(s.get("pruned_heads").replace(' ', ','), 2, 3));
      assertThat(off).hasSize(Integer.parseInt(s.get("heads_pruned")));
      assertThat(Double.parseDouble(s.get("metric"))).as("step %s", s.get("step"))
          .isCloseTo(plainAccuracy(off), within(1e-9));
    }
    assertThat(Files.readString(a)).doesNotContain("\"");
  }

  @Test
  void pruningOnTextStartsAtTheMaskedLmQualityAblateReports() throws Exception {
    Path text = Files.writeString(dir.resolve("text.txt"),
        "the cat sat on the mat .\nthe king was in paris .\tthe queen was in france .\nthe [MASK] ran .\n");
    Path prune = dir.resolve("prune.csv");
    var p = AblationCommandsTest.cli("prune", "--model", tiny.toString(), "--corpus", text.toString(), "--order",
        "importance", "--seed", "3", "--out", prune.toString());
    assertThat(p.code()).as(p.err()).isZero();
    List<CSVRecord> steps = AblationCommandsTest.csv(prune);
    assertThat(steps).hasSize(7); // 6 heads, 10% a step: 0.6 -> 1, 1.2 -> 1 (left out), 1.8 -> 2, ...
    Path ablation = dir.resolve("ablation.csv");
    var a = AblationCommandsTest.cli("ablate", "--model", tiny.toString(), "--corpus", text.toString(), "--seed", "3",
        "--out", ablation.toString());
    assertThat(a.code()).as(a.err()).isZero();
    assertThat(Double.parseDouble(steps.get(0).get("metric")))
        .isCloseTo(Double.parseDouble(AblationCommandsTest.csv(ablation).get(0).get("baseline_logprob")), within(1e-6));
    assertThat(steps.get(6).get("pruned_heads").split(" ")).hasSize(6);
  }

  @Test
  void importanceTaskWritesOneRowPerHeadWithTheTaskSweepBeside() throws Exception {
    Path out = dir.resolve("importance.csv");
    var run = AblationCommandsTest.cli("importance", "--model", classifier.toString(), "--corpus",
        labelled.toString(), "--task", "--out", out.toString());
    assertThat(run.code()).as(run.err()).isZero();
    List<CSVRecord> csv = AblationCommandsTest.csv(out);
    assertThat(csv).hasSize(6);
    assertThat(csv).allSatisfy(r -> assertThat(r.get("sweep_delta_logprob")).isNotEmpty());
    assertThat(run.err()).contains("cross-entropy of the gold label").contains("|delta_loglik|");
    double[] imp = csv.stream().mapToDouble(r -> Double.parseDouble(r.get("importance"))).toArray();
    assertThat(Arrays.stream(imp).max().orElseThrow()).isPositive();
  }
}
