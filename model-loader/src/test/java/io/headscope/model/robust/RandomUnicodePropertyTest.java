package io.headscope.model.robust;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A property over random Unicode: any string goes through the tokenizer and the forward pass and
 * either gives maps whose every row sums to 1 or, when it has no token at all, the one
 * "text is empty" error. Seeded, so a failure names its seed and repeats.
 */
class RandomUnicodePropertyTest {
  private static final int SEEDS = 20;
  private static final int STRINGS_PER_SEED = 150; // 3,000 strings in all

  @TempDir static Path tmp;
  private static BertModel model;

  @BeforeAll
  static void load() {
    model = BertModel.load(TinyBert.create(2, 4, 41).writeTo(tmp.resolve("tiny")));
  }

  @AfterAll
  static void close() {
    model.close();
  }

  static Stream<Long> seeds() {
    return IntStream.range(0, SEEDS).mapToObj(i -> 0x5EED0000L + i);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void anyTextGivesDistributionsOrTheEmptyTextError(long seed) {
    Random r = new Random(seed);
    List<Encoding> batch = new ArrayList<>();
    for (int i = 0; i < STRINGS_PER_SEED; i++) {
      String text = RandomText.next(r);
      String pair = r.nextInt(4) == 0 ? RandomText.next(r) : null;
      Encoding e;
      try {
        e = model.encode(text, pair);
      } catch (HeadScopeException empty) {
        assertThat(empty.getMessage()).as("seed %d, string %d: %s", seed, i, RandomText.escape(text))
            .containsAnyOf("text is empty", "second sentence is empty");
        continue;
      }
      assertThat(e.length()).isBetween(3, model.config().maxPositionEmbeddings());
      AttentionTrace t = model.trace(e);
      Maps.assertRowsAreDistributions(t, 1e-5);
      batch.add(e);
    }
    // the same inputs batched (padded to the longest) give distributions too
    for (AttentionTrace t : model.trace(TraceRequest.of(batch).top(1))) {
      Maps.assertRowsAreDistributions(t, 1e-5);
    }
  }
}
