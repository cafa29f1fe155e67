package io.headscope.analysis.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.headscope.analysis.heads.HeadAccumulator;
import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.analysis.heads.HeadPattern;
import io.headscope.analysis.heads.HeadScore;
import io.headscope.analysis.heads.HeadSummary;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HeadCsvTest {
  @TempDir Path dir;

  /** Summaries of real classifier scores on random maps, several inputs per head. */
  static List<HeadSummary> summaries() {
    HeadClassifier c = new HeadClassifier();
    List<String> tokens = List.of("[CLS]", "the", "cat", ",", "sat", ".", "[SEP]", "a", "dog", "[SEP]");
    long[] seg = {0, 0, 0, 0, 0, 0, 0, 1, 1, 1};
    Random r = new Random(3);
    List<HeadSummary> out = new ArrayList<>();
    for (Head h : Head.all(2, 3)) {
      HeadAccumulator acc = new HeadAccumulator(h);
      for (int input = 0; input < 4; input++) {
        float[][] map = new float[10][10];
        float[] norms = new float[10];
        for (int i = 0; i < 10; i++) {
          norms[i] = 0.5f + r.nextFloat();
          float sum = 0;
          for (int j = 0; j < 10; j++) {
            map[i][j] = (float) Math.pow(r.nextFloat(), 6);
            sum += map[i][j];
          }
          for (int j = 0; j < 10; j++) {
            map[i][j] /= sum;
          }
        }
        HeadScore s = c.score(h, map, norms, tokens, seg);
        acc.add(s);
      }
      out.add(acc.summary(c.thresholds()));
    }
    return out;
  }

  @Test
  void writtenRowsReadBackToTheSameSummaries() throws IOException {
    List<HeadSummary> heads = summaries();
    Path f = dir.resolve("heads.csv");
    HeadCsv.write(f, false, heads);
    List<HeadSummary> back;
    try (var in = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
      back = HeadCsv.read(in, f.toString());
    }
    assertThat(back).hasSameSizeAs(heads);
    for (int i = 0; i < heads.size(); i++) {
      HeadSummary a = heads.get(i);
      HeadSummary b = back.get(i);
      assertThat(b.head()).isEqualTo(a.head());
      assertThat(b.category()).isEqualTo(a.category());
      assertThat(b.majority()).isEqualTo(a.majority());
      assertThat(b.inputs()).isEqualTo(4);
      assertThat(b.topTokens()).isEqualTo(a.topTokens());
      assertThat(b.vertical()).isCloseTo(a.vertical(), within(1e-6));
      assertThat(b.block()).isCloseTo(a.block(), within(1e-6));
      assertThat(b.verticalFocus()).isCloseTo(a.verticalFocus(), within(1e-6));
      for (HeadPattern p : HeadPattern.values()) {
        assertThat(b.share(p)).isCloseTo(a.share(p), within(1e-6));
      }
      double[] x = {a.stats().entropy(), a.stats().previous(), a.stats().sep(), a.stats().normPunct(),
          a.stats().meanValueNorm()};
      double[] y = {b.stats().entropy(), b.stats().previous(), b.stats().sep(), b.stats().normPunct(),
          b.stats().meanValueNorm()};
      for (int k = 0; k < x.length; k++) {
        assertThat(y[k]).isCloseTo(x[k], within(1e-6));
      }
    }
  }

  @Test
  void headerIsStableAndRowsAreOneBased() throws IOException {
    Path f = dir.resolve("heads.csv");
    HeadCsv.write(f, false, summaries());
    List<String> lines = Files.readAllLines(f);
    assertThat(lines.get(0)).isEqualTo("layer,head,category,confidence,vertical,diagonal,block,heterogeneous,"
        + "share_vertical,share_diagonal,share_vertical_diagonal,share_block,share_heterogeneous,majority,"
        + "top_types,top_tokens,entropy,previous,next,self,cls,sep,punct,other,norm_cls,norm_sep,norm_punct,"
        + "norm_other,mean_value_norm,inputs,vertical_focus,likeliest,runner_up,runner_up_confidence");
    assertThat(lines.get(1)).startsWith("1,1,");
    assertThat(lines.get(6)).startsWith("2,3,");
  }

  @Test
  void anExistingFileIsNotOverwrittenWithoutForce() throws IOException {
    Path f = dir.resolve("heads.csv");
    Files.writeString(f, "mine");
    assertThatThrownBy(() -> HeadCsv.write(f, false, summaries())).isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("already exists");
    assertThat(Files.readString(f)).isEqualTo("mine");
    HeadCsv.write(f, true, summaries());
    assertThat(Files.readString(f)).startsWith("layer,head,");
  }

  @Test
  void aForeignCsvIsRefusedOnReading() {
    assertThatThrownBy(() -> HeadCsv.read(new StringReader("a,b\n1,2\n"), "x.csv"))
        .isInstanceOf(HeadScopeException.class).hasMessageContaining("not a HeadScope classify CSV");
  }
}
