package io.headscope.analysis.linguistics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Antecedent selection and the baselines on a window small enough to score by hand. */
class CorefHeadsTest {
  @Test
  void headsAndBaselinesPickAntecedentsAsDefined() {
    // words: 1 Anna 2 met 3 Bob 4 . 5 She 6 thanked 7 him 8 .  ([CLS]=0, [SEP]=9)
    List<CorefHeads.Placed> mentions = List.of(
        new CorefHeads.Placed("e1", 1, 1, 1, "anna", CorefHeads.MentionType.PROPER),
        new CorefHeads.Placed("e2", 3, 3, 3, "bob", CorefHeads.MentionType.PROPER),
        new CorefHeads.Placed("e1", 5, 5, 5, "she", CorefHeads.MentionType.PRONOUN),
        new CorefHeads.Placed("e2", 7, 7, 7, "him", CorefHeads.MentionType.PRONOUN));
    CorefHeads.Window w = new CorefHeads.Window("d", List.of("Anna", "met", "Bob", ".", "She", "thanked", "him", "."), null,
        mentions);
    float[][] good = new float[10][10]; // She -> Anna, him -> Bob
    good[5][1] = 0.6f;
    good[5][3] = 0.3f;
    good[7][3] = 0.5f;
    good[7][5] = 0.4f;
    float[][] bad = new float[10][10]; // She -> Bob, him -> She
    bad[5][3] = 0.9f;
    bad[7][5] = 0.9f;
    long[][][] correct = new long[1][2][4];
    long[] count = new long[4];
    Map<String, long[]> baselines = new LinkedHashMap<>();
    baselines.put(CorefHeads.NEAREST, new long[4]);
    baselines.put(CorefHeads.HEAD_MATCH, new long[4]);
    CorefHeads.score(w, new float[][][][] {{good, bad}}, correct, count, baselines);
    // evaluated: She (e1 earlier: Anna) and him (e2 earlier: Bob); Anna and Bob have no earlier mention
    assertThat(count).containsExactly(2, 2, 0, 0);
    assertThat(correct[0][0]).containsExactly(2, 2, 0, 0);
    assertThat(correct[0][1]).containsExactly(0, 0, 0, 0);
    // nearest: She -> Bob (wrong), him -> She (wrong); head_match: no equal head word, so nearest
    assertThat(baselines.get(CorefHeads.NEAREST)).containsExactly(0, 0, 0, 0);
    assertThat(baselines.get(CorefHeads.HEAD_MATCH)).containsExactly(0, 0, 0, 0);
  }

  @Test
  void headMatchFindsTheLatestEarlierMentionWithTheSameHeadWord() {
    // 1 the 2 dog 3 saw 4 a 5 cat 6 . 7 the 8 dog 9 ran
    List<CorefHeads.Placed> mentions = List.of(
        new CorefHeads.Placed("e1", 1, 2, 2, "dog", CorefHeads.MentionType.NOMINAL),
        new CorefHeads.Placed("e2", 4, 5, 5, "cat", CorefHeads.MentionType.NOMINAL),
        new CorefHeads.Placed("e1", 7, 8, 8, "dog", CorefHeads.MentionType.NOMINAL));
    long[] count = new long[4];
    Map<String, long[]> baselines = new LinkedHashMap<>();
    baselines.put(CorefHeads.NEAREST, new long[4]);
    baselines.put(CorefHeads.HEAD_MATCH, new long[4]);
    CorefHeads.score(new CorefHeads.Window("d", List.of(), null, mentions), new float[][][][] {{new float[11][11]}},
        new long[1][1][4], count, baselines);
    assertThat(count).containsExactly(1, 0, 0, 1);
    assertThat(baselines.get(CorefHeads.NEAREST)).containsExactly(0, 0, 0, 0); // the cat
    assertThat(baselines.get(CorefHeads.HEAD_MATCH)).containsExactly(1, 0, 0, 1); // the dog
  }

  @Test
  void oneHeadOnAWindowShowsEachMentionsGoldPicksAndBaselinesByHand() {
    // the window of the first test: She and him are evaluated; Anna and Bob have nothing earlier
    List<CorefHeads.Placed> mentions = List.of(
        new CorefHeads.Placed("e1", 1, 1, 1, "anna", CorefHeads.MentionType.PROPER),
        new CorefHeads.Placed("e2", 3, 3, 3, "bob", CorefHeads.MentionType.PROPER),
        new CorefHeads.Placed("e1", 5, 5, 5, "she", CorefHeads.MentionType.PRONOUN),
        new CorefHeads.Placed("e2", 7, 7, 7, "him", CorefHeads.MentionType.PRONOUN));
    CorefHeads.Window w = new CorefHeads.Window("doc", List.of("Anna", "met", "Bob", ".", "She", "thanked", "him",
        "."), null, mentions);
    float[][] map = new float[10][10]; // She -> Bob (wrong), him -> Bob (right); ties would go to the earlier
    map[5][3] = 0.7f;
    map[5][1] = 0.2f;
    map[7][3] = 0.5f;
    map[7][1] = 0.5f;
    map[7][5] = 0.5f;
    CorefOnWindow on = CorefOnWindow.of(w, 2, 5, new io.headscope.model.core.Head(0, 1), map);
    assertThat(on.document()).isEqualTo("doc");
    assertThat(on.words()).hasSize(9).startsWith("[CLS]", "Anna");
    assertThat(on.mentions()).hasSize(4);
    assertThat(on.picks()).hasSize(2);
    CorefOnWindow.Pick she = on.picks().get(0);
    assertThat(on.text(she.mention())).isEqualTo("She");
    assertThat(she.type()).isEqualTo("pronoun");
    assertThat(she.gold()).containsExactly(1);
    assertThat(she.chosen()).isEqualTo(3);
    assertThat(she.right()).isFalse();
    assertThat(she.nearest()).isEqualTo(3); // Bob, the latest earlier mention
    assertThat(she.headMatch()).isEqualTo(3); // no earlier "she": the nearest
    CorefOnWindow.Pick him = on.picks().get(1);
    assertThat(him.gold()).containsExactly(3);
    // Anna, Bob and She all at 0.5: the earliest candidate, Anna, wins the tie
    assertThat(him.chosen()).isEqualTo(1);
    assertThat(him.right()).isFalse();
    assertThat(him.nearest()).isEqualTo(5);
    assertThat(on.correct()).isZero();

    map[7][3] = 0.6f; // now him -> Bob
    assertThat(CorefOnWindow.of(w, 2, 5, new io.headscope.model.core.Head(0, 1), map).correct()).isEqualTo(1);
  }
}
