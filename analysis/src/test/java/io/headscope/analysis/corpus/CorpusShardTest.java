package io.headscope.analysis.corpus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CorpusShardTest {
  private static final String TEXT = String.join("\n", "one .", "", "two .\tthree .", "a\tb\tc", "four .", "five .",
      " ", "six .", "x".repeat(50), "seven .") + "\n";

  private static CorpusLines lines(Shard s) {
    return CorpusLines.of("t", new ByteArrayInputStream(TEXT.getBytes(StandardCharsets.UTF_8)), 40).only(s);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 4, 7, 10, 25})
  void theShardsTakeEveryLineOnceAndReportOnlyTheirOwnProblems(int n) {
    List<Integer> inputs = new ArrayList<>();
    List<Integer> problems = new ArrayList<>();
    for (int k = 0; k < n; k++) {
      try (CorpusLines l = lines(new Shard(k, n))) {
        for (CorpusInput in; (in = l.next()) != null; ) {
          assertThat((in.line() - 1) % n).as("line %d in shard %d/%d", in.line(), k, n).isEqualTo(k);
          inputs.add(in.line());
        }
        l.problems().forEach(p -> problems.add(p.line()));
        assertThat(l.problemCount()).isEqualTo(l.problems().size());
      }
    }
    inputs.sort(null);
    problems.sort(null);
    assertThat(inputs).containsExactly(1, 3, 5, 6, 8, 10);
    assertThat(problems).containsExactly(2, 4, 7, 9);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 3, 25})
  void aShardThatPlansOverTheWholeCorpusSeesEveryInputButReportsOnlyItsOwnLines(int n) {
    List<Integer> problems = new ArrayList<>();
    for (int k = 0; k < n; k++) {
      CorpusLines l = CorpusLines.of("t", new ByteArrayInputStream(TEXT.getBytes(StandardCharsets.UTF_8)), 40)
          .reportingFor(new Shard(k, n));
      List<Integer> inputs = new ArrayList<>();
      for (CorpusInput in; (in = l.next()) != null; ) {
        inputs.add(in.line());
      }
      assertThat(inputs).containsExactly(1, 3, 5, 6, 8, 10);
      l.problems().forEach(p -> problems.add(p.line()));
    }
    problems.sort(null);
    assertThat(problems).containsExactly(2, 4, 7, 9);
  }

  @ParameterizedTest
  @ValueSource(strings = {"3/3", "-1/2", "0/0"})
  void aShardOutsideItsCountIsNoShard(String s) {
    String[] kn = s.split("/");
    assertThatThrownBy(() -> new Shard(Integer.parseInt(kn[0]), Integer.parseInt(kn[1])))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
