package io.headscope.analysis.linguistics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One head window by window adds up to the whole treebank's score: over every window the right picks of
 * a head are {@link CorefHeads.Result}'s correct count, and the baselines' right picks its baselines'.
 */
class CorefOnWindowTest {
  static final Path COREF = Path.of("src", "test", "resources", "treebanks", "coref.conllu");
  @TempDir static Path dir;
  static BertModel model;

  @BeforeAll
  static void load() {
    model = BertModel.load(TinyBert.create(2, 3, 7).writeTo(dir.resolve("tiny")));
  }

  @AfterAll
  static void close() {
    model.close();
  }

  @Test
  void theWindowsPicksAddUpToTheTreebanksCounts() {
    Treebank tb = ConlluReader.read(COREF);
    int window = Math.min(LinguisticsRun.COREF_WINDOW, model.tokenizer().maxLength());
    CorefHeads.Result all = CorefHeads.run(model, tb, window, WordMaps.Progress.NONE, () -> false);
    CorefOnWindow.Windows windows = CorefOnWindow.windows(model, tb, window);
    List<Integer> with = windows.withMentions();
    assertThat(with).isNotEmpty();
    for (Head h : List.of(new Head(0, 0), new Head(1, 2))) {
      long right = 0;
      long mentions = 0;
      long nearest = 0;
      long headMatch = 0;
      for (int i : with) {
        CorefOnWindow on = CorefOnWindow.of(model, windows, i, h);
        assertThat(on.index()).isEqualTo(i);
        assertThat(on.picks()).isNotEmpty();
        right += on.correct();
        mentions += on.picks().size();
        nearest += on.picks().stream().filter(CorefOnWindow.Pick::nearestRight).count();
        headMatch += on.picks().stream().filter(CorefOnWindow.Pick::headMatchRight).count();
        for (CorefOnWindow.Pick p : on.picks()) {
          // every gold antecedent is the head word of an earlier mention of the same entity
          assertThat(p.gold()).allSatisfy(g -> assertThat(on.mentions()).anyMatch(m -> m.head() == g
              && m.entity().equals(p.mention().entity()) && m.start() < p.mention().start()));
        }
      }
      assertThat(mentions).isEqualTo(all.mentions()[CorefHeads.MentionType.ALL.ordinal()]);
      assertThat(right).as("head %s", h).isEqualTo(all.correct()[h.layer()][h.head()][0]);
      assertThat(nearest).isEqualTo(all.baselines().get(CorefHeads.NEAREST)[0]);
      assertThat(headMatch).isEqualTo(all.baselines().get(CorefHeads.HEAD_MATCH)[0]);
    }
    assertThatThrownBy(() -> CorefOnWindow.of(model, windows, 10_000, new Head(0, 0)))
        .isInstanceOf(HeadScopeException.class).hasMessageContaining("does not exist");
  }
}
