package io.headscope.analysis.linguistics;

import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import java.util.ArrayList;
import java.util.List;

/**
 * One head on one window of a coreference treebank, mention by mention, as {@link CorefHeads} scores
 * it: for each evaluated mention the gold antecedents, the head's pick, and the picks of the
 * {@code nearest} and {@code head_match} baselines. The app shows it when coreference is chosen; the
 * counts over every window are {@link CorefHeads.Result}'s.
 *
 * @param head the head shown
 * @param document the window's document id
 * @param index the window's 0-based place among the treebank's windows
 * @param windows how many windows the treebank makes
 * @param words the window's words, 1-based: {@code words.get(0)} is {@code [CLS]}
 * @param mentions every mention of the window, in order of start, then end
 * @param picks the evaluated mentions, in the same order
 */
public record CorefOnWindow(Head head, String document, int index, int windows, List<String> words,
    List<Span> mentions, List<Pick> picks) {

  /** A mention: its entity, its first and last word and its head word (1-based within the window). */
  public record Span(String entity, int start, int end, int head) {}

  /**
   * One evaluated mention.
   *
   * @param mention the mention
   * @param type pronoun, proper or nominal (its head word's UPOS)
   * @param gold the head words that would be right: heads of earlier mentions of its entity, ascending
   * @param chosen the head word the head's row attends to most among the candidates
   * @param nearest the nearest baseline's pick (head word)
   * @param headMatch the head-match baseline's pick (head word)
   */
  public record Pick(Span mention, String type, List<Integer> gold, int chosen, int nearest, int headMatch) {
    public boolean right() {
      return gold.contains(chosen);
    }

    public boolean nearestRight() {
      return gold.contains(nearest);
    }

    public boolean headMatchRight() {
      return gold.contains(headMatch);
    }
  }

  /**
   * A treebank cut into windows of at most {@code window} wordpieces (as {@link CorefHeads#run}), once: the
   * windows a person steps through and the ones among them with a mention to resolve.
   */
  public static final class Windows {
    private final List<CorefHeads.Window> all;
    private final List<Integer> withMentions = new ArrayList<>();

    private Windows(List<CorefHeads.Window> all) {
      this.all = all;
      for (int i = 0; i < all.size(); i++) {
        CorefHeads.Window w = all.get(i);
        if (w.mentions().stream().anyMatch(m -> CorefHeads.question(m, w.mentions()) != null)) {
          withMentions.add(i);
        }
      }
    }

    /** How many windows the treebank makes. */
    public int size() {
      return all.size();
    }

    /** The windows (0-based) that hold at least one evaluated mention. */
    public List<Integer> withMentions() {
      return List.copyOf(withMentions);
    }
  }

  /** Cuts the treebank into its windows (tokenizing it; no model run). */
  public static Windows windows(BertModel model, Treebank treebank, int window) {
    return new Windows(CorefHeads.windows(model, treebank, window, new int[1]));
  }

  /** Runs window {@code index} through the model and reads the head's word-level map. */
  public static CorefOnWindow of(BertModel model, Windows windows, int index, Head head) {
    if (index < 0 || index >= windows.size()) {
      throw new HeadScopeException("Window " + (index + 1) + " does not exist: the treebank makes " + windows.size()
          + " windows.");
    }
    CorefHeads.Window w = windows.all.get(index);
    float[][][][][] maps = new float[1][][][][];
    WordMaps.run(model, List.of(w.input()), r -> maps[0] = r.maps(), WordMaps.Progress.NONE, () -> false);
    return of(w, index, windows.size(), head, maps[0][head.layer()][head.head()]);
  }

  /** From a head's word-level map of the window already computed ({@code [CLS]} at 0). */
  static CorefOnWindow of(CorefHeads.Window w, int index, int windows, Head head, float[][] map) {
    List<String> words = new ArrayList<>();
    words.add("[CLS]");
    words.addAll(w.words());
    List<Span> spans = new ArrayList<>();
    List<Pick> picks = new ArrayList<>();
    for (CorefHeads.Placed m : w.mentions()) {
      Span span = new Span(m.entity(), m.start(), m.end(), m.head());
      spans.add(span);
      CorefHeads.Question q = CorefHeads.question(m, w.mentions());
      if (q != null) {
        picks.add(new Pick(span, m.type().label(), q.right().stream().sorted().toList(), q.pick(map[m.head()]),
            q.nearest().head(), q.headMatch().head()));
      }
    }
    return new CorefOnWindow(head, w.document(), index, windows, List.copyOf(words), List.copyOf(spans),
        List.copyOf(picks));
  }

  /** The words of a span joined by spaces. */
  public String text(Span s) {
    return String.join(" ", words.subList(s.start(), s.end() + 1));
  }

  /** How many of the picks are right. */
  public long correct() {
    return picks.stream().filter(Pick::right).count();
  }
}
