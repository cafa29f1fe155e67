package io.headscope.analysis.linguistics;

import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.tokenizer.WordEncoding;
import java.util.ArrayList;
import java.util.List;

/**
 * One head on one treebank sentence, for a person to check it: the head's word-level map, the gold
 * arcs and the heads the head picks in both directions ({@link DependencyHeads}'s rule: self set to 0,
 * {@code [CLS]}/{@code [SEP]} dropped), so where it is right and wrong shows word by word.
 *
 * @param words {@code [CLS]}, the sentence's words, {@code [SEP]} (word {@code i} of the sentence at index i)
 * @param map the head's word-level map over {@code words}
 * @param gold {@code gold[i]}: the gold head of word i (1..n; 0 the root), index 0 unused
 * @param relations {@code relations[i]}: word i's relation as written, index 0 unused
 * @param depToHead {@code depToHead[i]}: the word word i attends to most
 * @param headToDep {@code headToDep[i]}: the word that attends to word i most
 */
public record HeadOnSentence(Head head, Sentence sentence, List<String> words, float[][] map, int[] gold,
    String[] relations, int[] depToHead, int[] headToDep) {

  /** Runs the sentence's words through the model (one forward pass) and reads the head's map. */
  public static HeadOnSentence of(BertModel model, Sentence s, Head head) {
    WordEncoding e = model.tokenizer().encodeWords(s.words().stream().map(Word::form).toList());
    if (!e.fits()) {
      throw new HeadScopeException("Sentence " + s.id() + " is longer than the model's "
          + model.tokenizer().maxLength() + " positions.");
    }
    float[][][][][] maps = new float[1][][][][];
    WordMaps.run(model, List.of(e), r -> maps[0] = r.maps(), WordMaps.Progress.NONE, () -> false);
    return of(s, head, maps[0][head.layer()][head.head()]);
  }

  /** From a word-level map already computed ({@code [CLS]} at 0, {@code [SEP]} at n + 1). */
  public static HeadOnSentence of(Sentence s, Head head, float[][] map) {
    int n = s.size();
    List<String> words = new ArrayList<>();
    words.add("[CLS]");
    int[] gold = new int[n + 1];
    String[] rel = new String[n + 1];
    for (Word w : s.words()) {
      words.add(w.form());
      gold[w.id()] = w.head();
      rel[w.id()] = w.deprel();
    }
    words.add("[SEP]");
    return new HeadOnSentence(head, s, List.copyOf(words), map, gold, rel,
        DependencyHeads.argmaxRows(map, n, false), DependencyHeads.argmaxRows(map, n, true));
  }

  /** The head's pick for word i in a direction. */
  public int predicted(int word, DependencyHeads.Direction d) {
    return d == DependencyHeads.Direction.DEP_TO_HEAD ? depToHead[word] : headToDep[word];
  }

  /** How many words of a relation ({@code all}: every word) the head gets right in a direction. */
  public int correct(String relation, DependencyHeads.Direction d) {
    int c = 0;
    for (int i = 1; i < gold.length; i++) {
      if (counts(relation, i) && gold[i] != 0 && predicted(i, d) == gold[i]) {
        c++;
      }
    }
    return c;
  }

  /** Whether word i belongs to a relation ({@code all}, as written, or its universal part). */
  public boolean counts(String relation, int i) {
    return DependencyHeads.ALL.equals(relation) || relation.equals(relations[i])
        || relation.equals(universal(relations[i]));
  }

  private static String universal(String rel) {
    int colon = rel.indexOf(':');
    return colon < 0 ? rel : rel.substring(0, colon);
  }
}
