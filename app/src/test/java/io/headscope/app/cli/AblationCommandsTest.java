package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.headscope.analysis.favor.Favor;
import io.headscope.analysis.favor.FavorAnalysis;
import io.headscope.analysis.favor.FavorInput;
import io.headscope.analysis.favor.RandomFeatures;
import io.headscope.analysis.favor.RandomFeatures;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.analysis.ablation.AblationResult;
import io.headscope.analysis.ablation.AblationSweep;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.Intervention;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.Encoding;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import io.headscope.analysis.ablation.AblationCsv;
import java.util.List;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ablate, importance and predict --disable commands on small BERT folders the test writes. */
class AblationCommandsTest {
  @TempDir static Path models;
  @TempDir Path dir;
  static Path tiny;
  static Path classifier;

  @BeforeAll
  static void write() {
    tiny = models.resolve("tiny");
    TinyBert.create(2, 3, 17).writeTo(tiny);
    classifier = models.resolve("sentiment");
    TinyBert.create(2, 3, 23).withClassifier("neg", "pos").writeTo(classifier);
  }

  @Test
  void ablateWritesTheSweepOfTheServiceWithOneRowPerHeadAndAStarRowPerLayer() throws Exception {
    Path out = dir.resolve("ablation.csv");
    Run run = cli("ablate", "--model", tiny.toString(), "--text", "the cat sat on the mat .", "--layers",
        "--mode", "uniform", "--seed", "4", "--out", out.toString());
    assertThat(run.code).as(run.err).isZero();
    List<CSVRecord> rows = csv(out);
    assertThat(rows).hasSize(2 * 4);
    assertThat(rows.get(3).get("head")).isEqualTo("*");
    try (BertModel m = BertModel.load(TinyBert.create(2, 3, 17).writeTo(dir.resolve("again")))) {
      AblationResult r = new AblationSweep(m).run(m.encode("the cat sat on the mat .", null),
          new AblationSweep.Options(HeadMask.Mode.UNIFORM, true, 4));
      CSVRecord head23 = rows.get(4 + 2); // layer 2, head 3
      assertThat(head23.get("layer") + "-" + head23.get("head")).isEqualTo("2-3");
      assertThat(Double.parseDouble(head23.get("ablated_logprob"))).isCloseTo(r.headLogprob()[1][2], within(1e-6));
      assertThat(Double.parseDouble(rows.get(3).get("delta_acc"))).isCloseTo(r.layerDeltaAccuracy(0), within(1e-6));
    }
    assertThat(run.err).contains("hurts most");
  }

  @Test
  void ablateAveragesACorpusWithPairsAndImportanceReportsTheRankCorrelation() throws Exception {
    Path corpus = Files.writeString(dir.resolve("corpus.txt"),
        "the cat sat on the mat .\n\nthe king was in paris .\tthe queen was in france .\nthe [MASK] ran .\n");
    Path ablation = dir.resolve("a.csv");
    Run a = cli("ablate", "--model", tiny.toString(), "--corpus", corpus.toString(), "--out", ablation.toString());
    assertThat(a.code).as(a.err).isZero();
    assertThat(a.err).contains("3 input(s)");
    assertThat(csv(ablation)).hasSize(6);

    Path importance = dir.resolve("i.csv");
    Run i = cli("importance", "--model", tiny.toString(), "--corpus", corpus.toString(), "--out", importance.toString());
    assertThat(i.code).as(i.err).isZero();
    assertThat(i.err).containsPattern("Spearman rank correlation .*: -?[01]\\.\\d{3} \\(6 heads\\)");
    List<CSVRecord> rows = csv(importance);
    assertThat(rows).hasSize(6);
    List<CSVRecord> sweep = csv(ablation);
    for (int k = 0; k < 6; k++) {
      assertThat(Double.parseDouble(rows.get(k).get("sweep_delta_logprob")))
          .isCloseTo(Double.parseDouble(sweep.get(k).get("delta_logprob")), within(1e-6));
    }
  }

  @Test
  void mistakesGiveOneLineAndLeaveFilesAlone() throws Exception {
    Path out = Files.writeString(dir.resolve("keep.csv"), "mine\n");
    Run exists = cli("ablate", "--model", tiny.toString(), "--text", "the cat", "--out", out.toString());
    assertThat(exists.code).isEqualTo(1);
    assertThat(exists.err).contains("already exists; use --force").doesNotContain("Exception");
    assertThat(Files.readString(out)).isEqualTo("mine\n");

    Run both = cli("ablate", "--model", tiny.toString(), "--text", "a", "--corpus", "x.txt", "--out", dir.resolve("n.csv").toString());
    assertThat(both.code).as("options that do not go together: a command-line error").isEqualTo(2);
    assertThat(both.err.strip()).isEqualTo("headscope: Give either --text or --corpus (one of them).");
    Run mode = cli("ablate", "--model", tiny.toString(), "--text", "a", "--mode", "half", "--out", dir.resolve("n.csv").toString());
    assertThat(mode.err).contains("Mode \"half\" is unknown");
    assertThat(mode.code).isEqualTo(2);
    Run missing = cli("importance", "--model", tiny.toString(), "--corpus", dir.resolve("none.txt").toString(),
        "--out", dir.resolve("n.csv").toString());
    assertThat(missing.err.strip()).endsWith("does not exist.");
    try (var files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly("keep.csv");
    }
  }

  @Test
  void aTargetSweepNamesItsColumnsAfterTheMetricAndDescribesItselfBesideTheCsv() throws Exception {
    Path out = dir.resolve("target.csv");
    Run run = cli("ablate", "--model", tiny.toString(), "--text", "the [MASK] sat on the mat .", "--target", "cat",
        "--contrast", "dog", "--metric", "logit-diff", "--mode", "uniform", "--out", out.toString());
    assertThat(run.code).as(run.err).isZero();
    List<String> lines = Files.readAllLines(out);
    assertThat(lines.get(0)).isEqualTo("layer,head,baseline_logit_diff,ablated_logit_diff,delta_logit_diff,"
        + "baseline_acc,ablated_acc,delta_acc");
    assertThat(run.err).contains("logit difference");
    com.fasterxml.jackson.databind.JsonNode meta = new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(dir.resolve("target.csv.json").toFile());
    assertThat(meta.get("model").asText()).isEqualTo("tiny");
    assertThat(meta.get("text").asText()).isEqualTo("the [MASK] sat on the mat .");
    assertThat(meta.get("mode").asText()).isEqualTo("uniform");
    assertThat(meta.get("metric").asText()).isEqualTo("logit_diff");
    assertThat(meta.get("target").asText()).isEqualTo("cat");
    assertThat(meta.get("contrast").asText()).isEqualTo("dog");
    assertThat(meta.get("partial").asBoolean()).isFalse();

    // the default sweep keeps its header, byte for byte
    Path plain = dir.resolve("plain.csv");
    assertThat(cli("ablate", "--model", tiny.toString(), "--text", "the [MASK] sat .", "--out", plain.toString()).code).isZero();
    assertThat(Files.readAllLines(plain).get(0)).isEqualTo(String.join(",", AblationCsv.ABLATION_HEADER));
    assertThat(Files.readString(dir.resolve("plain.csv.json"))).contains("\"metric\" : \"logprob\"");
    for (String f : List.of("target.csv", "target.csv.json", "plain.csv", "plain.csv.json")) {
      Files.delete(dir.resolve(f));
    }
  }

  @Test
  void targetOptionsThatDoNotFitAreCommandLineErrors() throws Exception {
    Path out = dir.resolve("t.csv");
    assertThat(cli("ablate", "--model", tiny.toString(), "--text", "the [MASK] .", "--contrast", "dog",
        "--out", out.toString()).code).isEqualTo(2);
    assertThat(cli("ablate", "--model", tiny.toString(), "--text", "the [MASK] .", "--target", "cat",
        "--metric", "logit-diff", "--out", out.toString()).code).isEqualTo(2);
    assertThat(cli("ablate", "--model", tiny.toString(), "--text", "the [MASK] .", "--target", "cat",
        "--metric", "odds", "--out", out.toString()).code).isEqualTo(2);
    Run noMask = cli("ablate", "--model", tiny.toString(), "--text", "the cat sat .", "--target", "cat",
        "--out", out.toString());
    assertThat(noMask.code).isEqualTo(1);
    assertThat(noMask.err).contains("[MASK]");
    Run twoPieces = cli("ablate", "--model", tiny.toString(), "--text", "the [MASK] .", "--target", "catdog",
        "--out", out.toString());
    assertThat(twoPieces.code).isEqualTo(1);
    assertThat(twoPieces.err).contains("wordpieces");
    assertThat(out).doesNotExist();
  }

  @Test
  void predictDisableOnAClassifierReportsClassProbabilitiesBeforeAndAfter() throws Exception {
    Path out = dir.resolve("p.json");
    Run run = cli("predict", "--model", classifier.toString(), "--text", "the [MASK] was good .",
        "--disable", "1", "--out", out.toString());
    assertThat(run.code).as(run.err).isZero();
    JsonNode classes = new ObjectMapper().readTree(out.toFile()).get("classes");
    assertThat(classes).hasSize(2);
    assertThat(classes.get(0).get("label").asText()).isEqualTo("neg");
    assertThat(classes.get(1).get("label").asText()).isEqualTo("pos");
    try (BertModel m = BertModel.load(TinyBert.create(2, 3, 23).withClassifier("neg", "pos").writeTo(dir.resolve("m")))) {
      Encoding e = m.encode("the [MASK] was good .", null);
      float[] before = m.trace(e).classProbabilities();
      float[] after = m.trace(TraceRequest.of(e).mask(HeadMask.of(Head.parseList("1", 2, 3), HeadMask.Mode.ZERO)))
          .get(0).classProbabilities();
      for (int k = 0; k < 2; k++) {
        assertThat(classes.get(k).get("before").asDouble()).isCloseTo(before[k], within(1e-6));
        assertThat(classes.get(k).get("probability").asDouble()).isCloseTo(after[k], within(1e-6));
      }
      assertThat(Math.abs(after[0] - before[0])).as("layer 1 matters to the classifier").isGreaterThan(1e-4f);
    }
  }

  /**
   * predict --favor: head 2-3 runs on FAVOR+; the JSON says so, and its probabilities are those of a pass
   * that patches the hand-computed FAVOR+ map (from the intact q and k) into that head's pattern.
   */
  @Test
  void predictFavorRunsTheHeadOnFavorAndComparesWithTheIntactModel() throws Exception {
    Path out = dir.resolve("favor.json");
    String text = "the cat sat on the [MASK] .";
    Run run = cli("predict", "--model", tiny.toString(), "--text", text, "--favor", "2-3", "--favor-features", "16",
        "--top", "3", "--out", out.toString());
    assertThat(run.code).as(run.err).isZero();
    JsonNode json = new ObjectMapper().readTree(out.toFile());
    assertThat(json.get("favor").get("heads").get(0).asText()).isEqualTo("2-3");
    assertThat(json.get("favor").get("features").asInt()).isEqualTo(16);
    assertThat(json.get("favor").get("kind").asText()).isEqualTo("orf");
    assertThat(json.get("disabled")).isEmpty();
    JsonNode p = json.get("predictions").get(0);
    assertThat(p.has("before")).isTrue();
    try (BertModel m = BertModel.load(TinyBert.create(2, 3, 17).writeTo(dir.resolve("favor-model")))) {
      Encoding e = m.encode(text, null);
      var in = FavorInput.capture(m, e);
      double[][] w = FavorAnalysis.directions(0, 16,
          RandomFeatures.Kind.ORF, 1, 2, 0, m.config().headSize());
      double[][] fav = Favor.map(in.q(1, 2), in.k(1, 2), w);
      AttentionTrace intact = m.trace(e);
      int n = e.length();
      float[] patch = new float[3 * n * n];
      for (int h = 0; h < 3; h++) {
        for (int i = 0; i < n; i++) {
          for (int j = 0; j < n; j++) {
            patch[(h * n + i) * n + j] = h == 2 ? (float) fav[i][j] : intact.map(new Head(1, h))[i][j];
          }
        }
      }
      int position = p.get("position").asInt();
      float[] logp = m.run(RunRequest.of(e)
          .intervene(new Intervention.Patch(HookPoint.pattern(1),
              new Activation(patch, new int[] {1, 3, n, n})))
          .read(Readouts.none().withLogProbs(new int[] {position}))).logProbs()[0][0];
      for (JsonNode t : p.get("top")) {
        assertThat(t.get("probability").asDouble()).isCloseTo(Math.exp(logp[t.get("id").asInt()]), within(2e-6));
      }
      assertThat(p.get("klDivergence").asDouble()).isGreaterThan(0);
    }
    Run bad = cli("predict", "--model", tiny.toString(), "--text", text, "--favor", "2-3", "--favor-kind", "gauss");
    assertThat(bad.code).isEqualTo(2);
    assertThat(bad.err.strip()).isEqualTo("headscope: --favor-kind must be orf or iid, got \"gauss\".");
  }

  record Run(int code, String err) {}

  /** Runs the CLI in this JVM, capturing what it prints to stderr. */
  static Run cli(String... args) {
    PrintStream old = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      int code = HeadScopeCli.run(args);
      return new Run(code, err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setErr(old);
    }
  }

  static List<CSVRecord> csv(Path file) throws Exception {
    try (Reader r = Files.newBufferedReader(file)) {
      return CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).get().parse(r).getRecords();
    }
  }
}
