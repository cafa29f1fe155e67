package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.analysis.heads.HeadScore;
import io.headscope.app.gui.exec.DirectWorker;
import io.headscope.app.gui.linguistics.LinguisticsViewModel;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.gui.main.rank.RankViewModel;
import io.headscope.app.gui.session.HeadMeasure;
import io.headscope.model.core.Head;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ranking heads by a number: the top heads are those a plain sort of the scores puts first (ties to the
 * lower layer, then head), in either order; the screens' published numbers rank the same way.
 */
class RankViewModelTest {
  @TempDir static Path dir;
  static MainViewModel main;

  @BeforeAll
  static void load() {
    Path tiny = TinyBert.create(2, 3, 7).writeTo(dir.resolve("tiny")).config().getParent();
    main = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    main.textAProperty().set("the cat sat on the mat .");
    main.loadModel(tiny.toString());
    main.analyse();
  }

  @Test
  void theTopHeadsByAttentionToThePreviousTokenAreThePlainSortsFirst() {
    RankViewModel rank = main.rank();
    assertThat(main.scoresProperty()).hasSize(6);
    rank.chosenProperty().set("attention to the previous token");
    rank.topProperty().set(4);
    assertThat(rank.largestFirstProperty().get()).isTrue();
    // the brute force: every head's share, sorted by hand with an explicit comparison
    List<HeadScore> all = new ArrayList<>(main.scoresProperty());
    all.sort((a, b) -> {
      int c = Double.compare(b.stats().previous(), a.stats().previous());
      return c != 0 ? c : a.head().layer() != b.head().layer() ? a.head().layer() - b.head().layer()
          : a.head().head() - b.head().head();
    });
    assertThat(rank.ranked()).extracting(RankViewModel.Ranked::head)
        .containsExactlyElementsOf(all.subList(0, 4).stream().map(HeadScore::head).toList());
    assertThat(rank.ranked()).extracting(RankViewModel.Ranked::rank).containsExactly(1, 2, 3, 4);
    assertThat(rank.ranked().get(0).value()).isEqualTo(all.get(0).stats().previous());
    assertThat(rank.ranksProperty().get()).hasSize(4).containsEntry(all.get(0).head(), 1);

    rank.largestFirstProperty().set(false);
    assertThat(rank.ranked().get(0).head()).isEqualTo(all.get(all.size() - 1).head());
    assertThat(rank.ranked().get(0).value()).isLessThanOrEqualTo(rank.ranked().get(3).value());

    // entropy ranks the most focused first by default
    rank.chosenProperty().set("entropy (nats; smallest = most focused)");
    assertThat(rank.largestFirstProperty().get()).isFalse();
    double min = main.scoresProperty().stream().mapToDouble(s -> s.stats().entropy()).min().orElseThrow();
    assertThat(rank.ranked().get(0).value()).isEqualTo(min);

    rank.topProperty().set(100);
    assertThat(rank.ranked()).hasSize(6);
    rank.clear();
    assertThat(rank.ranked()).isEmpty();
    assertThat(rank.ranksProperty().get()).isEmpty();
  }

  @Test
  void aScreensPublishedNumbersRankAndLeaveWithIt() {
    RankViewModel rank = main.rank();
    double[][] v = {{0.5, Double.NaN, 0.9}, {0.9, 0.1, 0.2}};
    main.session().publish(new HeadMeasure("test", "made-up accuracy (Test)", v, true));
    assertThat(rank.choices()).contains("made-up accuracy (Test)");
    rank.chosenProperty().set("made-up accuracy (Test)");
    rank.topProperty().set(10);
    // NaN is left out; the tie at 0.9 goes to the lower layer
    assertThat(rank.ranked()).extracting(RankViewModel.Ranked::head).containsExactly(new Head(0, 2), new Head(1, 0),
        new Head(0, 0), new Head(1, 2), new Head(1, 1));
    main.session().withdraw("test");
    assertThat(rank.choices()).doesNotContain("made-up accuracy (Test)");
    assertThat(rank.chosenProperty().get()).isEqualTo(RankViewModel.NONE);
    assertThat(rank.ranked()).isEmpty();
  }

  @Test
  void theLinguisticsScreenOffersTheChosenRelationsAccuracy() {
    LinguisticsViewModel ling = new LinguisticsViewModel(main.session());
    ling.open(LinguisticsViewModelTest.TREEBANKS.resolve("syntax.conllu"));
    RankViewModel rank = main.rank();
    assertThat(rank.choices()).contains("all accuracy (Linguistics)");
    rank.chosenProperty().set("all accuracy (Linguistics)");
    double[][] g = ling.grid();
    double best = Math.max(Math.max(Math.max(g[0][0], g[0][1]), Math.max(g[0][2], g[1][0])), Math.max(g[1][1], g[1][2]));
    assertThat(rank.ranked().get(0).value()).isEqualTo(best);
    main.session().withdraw("linguistics");
  }

  @Test
  void theSpecialTokensAreTheModelsOwnAndTheChoiceKeepsItsPlaceAcrossModels() {
    Path roberta = dir.resolve("roberta");
    io.headscope.model.testing.families.FamilyModelFolders.write("roberta", roberta, 3);
    Path tiny = TinyBert.create(2, 3, 7).writeTo(dir.resolve("tiny-b")).config().getParent();
    MainViewModel m = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache-b")));
    RankViewModel rank = m.rank();
    // a new window's choice says what it is (a bare dash read as an empty box)
    assertThat(rank.chosenProperty().get()).isEqualTo(RankViewModel.NONE).isNotBlank().contains("choose");
    m.textAProperty().set("the cat sat on the mat .");
    m.loadModel(roberta.toString());
    assertThat(rank.choices()).contains("attention to <s>", "attention to </s>")
        .noneMatch(c -> c.contains("[CLS]") || c.contains("[SEP]"));
    rank.chosenProperty().set("attention to <s>");
    // the value is the score's cls share: <s> is RoBERTa's token of that type
    HeadScore s = m.score(new Head(0, 0));
    assertThat(rank.ranked()).isNotEmpty();
    assertThat(rank.ranked().stream().filter(r -> r.head().equals(new Head(0, 0))).findFirst()
        .map(RankViewModel.Ranked::value)).hasValueSatisfying(v -> assertThat(v).isEqualTo(s.stats().cls()));
    m.loadModel(tiny.toString());
    assertThat(rank.choices()).contains("attention to [CLS]").doesNotContain("attention to <s>");
    assertThat(rank.chosenProperty().get()).isEqualTo("attention to [CLS]");
  }

  @Test
  void aModelWithoutSpecialTokensOffersNoShareOfThemAndAChoiceOfOneFallsToNoRanking() {
    Path gpt2 = dir.resolve("gpt2-r");
    io.headscope.model.testing.families.FamilyModelFolders.write("gpt2", gpt2, 3);
    Path tiny = TinyBert.create(2, 3, 7).writeTo(dir.resolve("tiny-r")).config().getParent();
    MainViewModel m = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache-r")));
    RankViewModel rank = m.rank();
    m.textAProperty().set("the cat sat on the mat .");
    m.loadModel(tiny.toString());
    rank.chosenProperty().set("attention to [CLS]");
    // GPT-2's input has no token of either type: a share of attention to one is 0 for every head
    m.loadModel(gpt2.toString());
    assertThat(m.session().trace().tokens()).noneMatch(t -> t.equals("[CLS]") || t.equals("[SEP]"));
    assertThat(rank.choices()).noneMatch(c -> c.contains("[CLS]") || c.contains("[SEP]"))
        .contains("attention to the previous token", "entropy (nats; smallest = most focused)");
    assertThat(rank.chosenProperty().get()).isEqualTo(RankViewModel.NONE);
    // a score every model has keeps its place across the switch, though the lists differ in length
    rank.chosenProperty().set("entropy (nats; smallest = most focused)");
    m.loadModel(tiny.toString());
    assertThat(rank.chosenProperty().get()).isEqualTo("entropy (nats; smallest = most focused)");
    assertThat(rank.choices()).contains("attention to [CLS]", "attention to [SEP]");
  }
}
