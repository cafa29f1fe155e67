package io.headscope.analysis.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.headscope.analysis.corpus.Corpus;
import io.headscope.analysis.corpus.CorpusAnalysis;
import io.headscope.analysis.corpus.CorpusInput;
import io.headscope.analysis.corpus.CorpusLines;
import io.headscope.analysis.corpus.CorpusReader;
import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.analysis.heads.HeadPattern;
import io.headscope.analysis.heads.HeadScore;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.Encoding;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compare against the definitions computed here with plain loops, one input at a time, from each
 * model's own {@code attention} traces of the same token ids.
 */
class ModelComparisonTest {
  @TempDir static Path dir;
  static BertModel a;
  static BertModel sameAsA;
  static BertModel b;

  private static final List<CorpusInput> INPUTS = List.of(
      new CorpusInput(1, "the cat sat on the mat .", null),
      new CorpusInput(2, "a dog ran .", "the dog was fast ."),
      new CorpusInput(3, "birds fly south in the winter , then come back .", null),
      new CorpusInput(4, "it is a cat .", null));

  @BeforeAll
  static void load() {
    a = BertModel.load(TinyBert.create(2, 3, 5).writeTo(dir.resolve("a")));
    sameAsA = BertModel.load(TinyBert.create(2, 3, 5).writeTo(dir.resolve("a-again")));
    b = BertModel.load(TinyBert.create(2, 3, 11).writeTo(dir.resolve("b")));
  }

  @AfterAll
  static void close() {
    a.close();
    sameAsA.close();
    b.close();
  }

  private static Corpus corpus() {
    return new Corpus("test", INPUTS, List.of());
  }

  @Test
  void aModelWithItselfHasCosineOneAndNoDivergenceAndTheSameCategories() {
    ComparisonResult r = new ModelComparison(a, sameAsA, new HeadClassifier(), 2)
        .run(corpus(), CorpusAnalysis.Progress.NONE, () -> false);
    assertThat(r.perHead()).hasSize(6);
    for (HeadComparison h : r.perHead()) {
      assertThat(h.cosine()).as(h.head().toString()).isCloseTo(1.0, within(1e-6));
      assertThat(h.jsDivergence()).as(h.head().toString()).isCloseTo(0.0, within(1e-6));
      assertThat(h.categoryB()).isEqualTo(h.categoryA());
      assertThat(h.inputs()).isEqualTo(INPUTS.size());
    }
    for (LayerComparison l : r.perLayer()) {
      assertThat(l.cosine()).isCloseTo(1.0, within(1e-6));
      assertThat(l.jsDivergence()).isCloseTo(0.0, within(1e-6));
    }
    assertThat(r.changedCategories()).isEmpty();
  }

  @Test
  void twoModelsGiveTheMeansOfTheDefinitionsOverSeparateTraces() {
    HeadClassifier classifier = new HeadClassifier();
    ComparisonResult r = new ModelComparison(a, b, classifier, 3).run(corpus(), CorpusAnalysis.Progress.NONE,
        () -> false);
    int heads = 3;
    double[] cosine = new double[6];
    double[] js = new double[6];
    int[][] countsA = new int[6][HeadPattern.values().length];
    int[][] countsB = new int[6][HeadPattern.values().length];
    for (CorpusInput in : INPUTS) {
      Encoding e = a.encode(in.a(), in.b()); // A's tokenizer; the same ids go into B
      AttentionTrace ta = a.trace(e);
      AttentionTrace tb = b.trace(e);
      List<HeadScore> sa = classifier.classifyAll(ta);
      List<HeadScore> sb = classifier.classifyAll(tb);
      for (int l = 0; l < 2; l++) {
        for (int h = 0; h < heads; h++) {
          float[][] p = ta.attention()[l][h];
          float[][] q = tb.attention()[l][h];
          int k = l * heads + h;
          cosine[k] += bruteCosine(p, q) / INPUTS.size();
          js[k] += bruteJs(p, q) / INPUTS.size();
          countsA[k][sa.get(k).category().ordinal()]++;
          countsB[k][sb.get(k).category().ordinal()]++;
        }
      }
    }
    boolean someDiffer = false;
    for (int k = 0; k < 6; k++) {
      HeadComparison c = r.perHead().get(k);
      assertThat(c.head()).isEqualTo(new Head(k / heads, k % heads));
      assertThat(c.cosine()).as(c.head().toString()).isCloseTo(cosine[k], within(1e-5));
      assertThat(c.jsDivergence()).as(c.head().toString()).isCloseTo(js[k], within(1e-5));
      assertThat(c.categoryA()).isEqualTo(majority(countsA[k]));
      assertThat(c.categoryB()).isEqualTo(majority(countsB[k]));
      someDiffer |= c.cosine() < 0.99;
      assertThat(c.jsDivergence()).isBetween(0.0, Math.log(2));
    }
    assertThat(someDiffer).as("two random models differ somewhere").isTrue();
    for (int l = 0; l < 2; l++) {
      double mc = (cosine[l * 3] + cosine[l * 3 + 1] + cosine[l * 3 + 2]) / 3;
      double mj = (js[l * 3] + js[l * 3 + 1] + js[l * 3 + 2]) / 3;
      assertThat(r.perLayer().get(l).cosine()).isCloseTo(mc, within(1e-5));
      assertThat(r.perLayer().get(l).jsDivergence()).isCloseTo(mj, within(1e-5));
    }
    assertThat(r.layersByCosine().get(0).cosine()).isLessThanOrEqualTo(r.layersByCosine().get(1).cosine());
  }

  @Test
  void aStreamedFileGivesWhatTheCorpusGives() {
    StringBuilder text = new StringBuilder();
    for (CorpusInput in : INPUTS) {
      text.append(in.a()).append(in.b() == null ? "" : "\t" + in.b()).append('\n');
    }
    text.append("\n"); // a blank line, skipped
    CorpusLines lines = CorpusLines.of("file", new ByteArrayInputStream(text.toString().getBytes(StandardCharsets.UTF_8)),
        CorpusReader.MAX_CHARS);
    ModelComparison c = new ModelComparison(a, b, new HeadClassifier(), 2);
    ComparisonResult streamed = c.run(lines, CorpusAnalysis.Progress.NONE, () -> false);
    ComparisonResult whole = c.run(corpus(), CorpusAnalysis.Progress.NONE, () -> false);
    assertThat(streamed.inputs()).isEqualTo(4);
    for (int k = 0; k < 6; k++) {
      assertThat(streamed.perHead().get(k).cosine()).isCloseTo(whole.perHead().get(k).cosine(), within(1e-9));
    }
  }

  @Test
  void theCsvHasEachLayersHeadsThenItsMeanRow() throws Exception {
    ComparisonResult r = new ModelComparison(a, b, new HeadClassifier(), 4).run(corpus(), CorpusAnalysis.Progress.NONE,
        () -> false);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    CompareCsv.write(r, out);
    List<String> rows = out.toString(StandardCharsets.UTF_8).lines().toList();
    assertThat(rows.get(0)).isEqualTo("layer,head,cosine,js_divergence,category_a,category_b,inputs");
    assertThat(rows).hasSize(1 + 2 * (3 + 1));
    assertThat(rows.get(1)).startsWith("1,1,");
    assertThat(rows.get(4)).startsWith("1,*,").endsWith(",,,4");
    assertThat(rows.get(8)).startsWith("2,*,");
    String[] first = rows.get(1).split(",");
    assertThat(Double.parseDouble(first[2])).isCloseTo(r.perHead().get(0).cosine(), within(5e-7));
    assertThat(first[3]).matches("\\d\\.\\d{9}");
  }

  @Test
  void cancellingStopsTheRun() {
    assertThatThrownBy(() -> new ModelComparison(a, b, new HeadClassifier(), 1)
        .run(corpus(), CorpusAnalysis.Progress.NONE, () -> true)).isInstanceOf(CancellationException.class);
  }

  @Test
  void aModelOfAnotherShapeIsRefusedInOneLine() {
    try (BertModel deeper = BertModel.load(TinyBert.create(3, 3, 5).writeTo(dir.resolve("deeper")))) {
      assertThatThrownBy(() -> new ModelComparison(a, deeper, new HeadClassifier(), 2))
          .isInstanceOf(HeadScopeException.class)
          .hasMessageContaining("2 layers x 3 heads").hasMessageContaining("3 layers x 3 heads")
          .hasMessageContaining("same shape")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }
  }

  @Test
  void aModelWithAnotherVocabularyIsRefused() throws Exception {
    Path other = dir.resolve("other-vocab");
    io.headscope.model.store.ModelFiles files = TinyBert.create(2, 3, 5).writeTo(other);
    // the same number of tokens, one of them spelled differently: the same id would mean another word
    Files.writeString(other.resolve("vocab.txt"), Files.readString(other.resolve("vocab.txt"))
        .replace("\ncat\n", "\ncot\n"));
    String json = Files.readString(other.resolve("tokenizer.json"));
    assertThat(json).containsPattern("\"cat\"\\s*:");
    Files.writeString(other.resolve("tokenizer.json"), json.replaceFirst("\"cat\"(\\s*):", "\"cot\"$1:"));
    try (BertModel changed = BertModel.load(files)) {
      assertThatThrownBy(() -> new ModelComparison(a, changed, new HeadClassifier(), 2))
          .isInstanceOf(HeadScopeException.class)
          .hasMessageContaining("vocabularies differ").hasMessageContaining("\"cat\"");
    }
  }

  /** The definition: <p, q> / (|p| |q|) over all cells. */
  private static double bruteCosine(float[][] p, float[][] q) {
    double dot = 0;
    double pp = 0;
    double qq = 0;
    for (int i = 0; i < p.length; i++) {
      for (int j = 0; j < p.length; j++) {
        dot += p[i][j] * (double) q[i][j];
        pp += p[i][j] * (double) p[i][j];
        qq += q[i][j] * (double) q[i][j];
      }
    }
    return dot / Math.sqrt(pp) / Math.sqrt(qq);
  }

  /** Mean over rows of H(m) - (H(p) + H(q)) / 2, the entropy form of JS, in nats. */
  private static double bruteJs(float[][] p, float[][] q) {
    double sum = 0;
    for (int i = 0; i < p.length; i++) {
      double hm = 0;
      double hp = 0;
      double hq = 0;
      for (int j = 0; j < p.length; j++) {
        double m = (p[i][j] + (double) q[i][j]) / 2;
        hm -= m > 0 ? m * Math.log(m) : 0;
        hp -= p[i][j] > 0 ? p[i][j] * Math.log(p[i][j]) : 0;
        hq -= q[i][j] > 0 ? q[i][j] * Math.log(q[i][j]) : 0;
      }
      sum += hm - (hp + hq) / 2;
    }
    return sum / p.length;
  }

  /** The most frequent category; a tie goes to the one first in the paper's order. */
  private static HeadPattern majority(int[] counts) {
    int best = 0;
    for (int c = 1; c < counts.length; c++) {
      if (counts[c] > counts[best]) {
        best = c;
      }
    }
    return HeadPattern.values()[best];
  }
}
