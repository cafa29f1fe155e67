package io.headscope.analysis.linguistics;

import io.headscope.analysis.corpus.Shard;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.tokenizer.WordEncoding;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * Coreference heads (Clark et al. 2019, Section 4.3): how often a head's word-level attention from a
 * mention's head word picks the head word of an earlier mention of the same entity, beside the
 * {@code nearest} and {@code head_match} baselines. Definitions in METHODS.md.
 *
 * <p>Documents are cut greedily into windows of whole consecutive sentences of at most
 * {@code window} wordpieces with {@code [CLS]} and {@code [SEP]}; a sentence longer than the window is
 * a window of its own if it fits the model, else it is skipped and counted.
 */
public final class CorefHeads {
  /** Mention types by the head word's UPOS. */
  public enum MentionType {
    ALL("all"),
    PRONOUN("pronoun"),
    PROPER("proper"),
    NOMINAL("nominal");

    private final String label;

    MentionType(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }

    static MentionType of(String upos) {
      return switch (upos) {
        case "PRON" -> PRONOUN;
        case "PROPN" -> PROPER;
        default -> NOMINAL;
      };
    }
  }

  /** A mention placed in its window: word positions are 1-based within the window's words. */
  record Placed(String entity, int start, int end, int head, String headForm, MentionType type) {}

  /** One window: its words, their encoding and its mentions in order of start, then end. */
  record Window(String document, List<String> words, WordEncoding input, List<Placed> mentions) {}

  /** The result: per head and type, mentions and correct counts; the baselines; what was skipped. */
  public record Result(int layers, int heads, long[][][] correct, long[] mentions, Map<String, long[]> baselines,
      int windows, int tooLong) {

    public double accuracy(int layer, int head, MentionType t) {
      return mentions[t.ordinal()] == 0 ? Double.NaN : correct[layer][head][t.ordinal()] / (double) mentions[t.ordinal()];
    }

    public double baselineAccuracy(String baseline, MentionType t) {
      return mentions[t.ordinal()] == 0 ? Double.NaN : baselines.get(baseline)[t.ordinal()] / (double) mentions[t.ordinal()];
    }
  }

  /** Shards' results added up: counts summed; {@code tooLong}, the treebank's, taken from the first. */
  public static Result sum(List<Result> parts) {
    Result first = parts.get(0);
    int types = MentionType.values().length;
    long[][][] correct = new long[first.layers()][first.heads()][types];
    long[] mentions = new long[types];
    Map<String, long[]> baselines = new LinkedHashMap<>();
    int windows = 0;
    for (Result r : parts) {
      for (int l = 0; l < first.layers(); l++) {
        for (int h = 0; h < first.heads(); h++) {
          for (int t = 0; t < types; t++) {
            correct[l][h][t] += r.correct()[l][h][t];
          }
        }
      }
      for (int t = 0; t < types; t++) {
        mentions[t] += r.mentions()[t];
      }
      r.baselines().forEach((k, v) -> {
        long[] b = baselines.computeIfAbsent(k, x -> new long[types]);
        for (int t = 0; t < types; t++) {
          b[t] += v[t];
        }
      });
      windows += r.windows();
    }
    return new Result(first.layers(), first.heads(), correct, mentions, baselines, windows, first.tooLong());
  }

  public static final String NEAREST = "nearest";
  public static final String HEAD_MATCH = "head_match";

  private CorefHeads() {}

  public static Result run(BertModel model, Treebank treebank, int window, WordMaps.Progress progress,
      BooleanSupplier cancelled) {
    return run(model, treebank, window, Shard.ALL, progress, cancelled);
  }

  /**
   * The same over one shard: the shard's batches of the single run's plan of windows ({@link
   * WordMaps#run(BertModel, List, Shard, java.util.function.Consumer, WordMaps.Progress, BooleanSupplier)}).
   * Counts are integers, so the shards' results add up to one run's ({@link #sum}); a shard may hold no
   * window. {@code tooLong} counts the whole treebank's, in every shard.
   */
  public static Result run(BertModel model, Treebank treebank, int window, Shard shard, WordMaps.Progress progress,
      BooleanSupplier cancelled) {
    int max = model.tokenizer().maxLength();
    if (window < 3 || window > max) {
      throw new HeadScopeException("--window must be between 3 and the model's " + max + " positions, got " + window + ".");
    }
    int[] tooLong = {0};
    List<Window> windows = windows(model, treebank, window, tooLong);
    if (windows.isEmpty()) {
      throw new HeadScopeException("No sentence of " + treebank.name() + " fits the model.");
    }
    int layers = model.config().numHiddenLayers();
    int heads = model.config().numAttentionHeads();
    long[][][] correct = new long[layers][heads][MentionType.values().length];
    long[] mentions = new long[MentionType.values().length];
    Map<String, long[]> baselines = new LinkedHashMap<>();
    baselines.put(NEAREST, new long[MentionType.values().length]);
    baselines.put(HEAD_MATCH, new long[MentionType.values().length]);
    List<WordEncoding> inputs = windows.stream().map(Window::input).toList();
    int[] done = {0};
    WordMaps.run(model, inputs, shard, r -> {
      score(windows.get(r.index()), r.maps(), correct, mentions, baselines);
      done[0]++;
    }, progress, cancelled);
    return new Result(layers, heads, correct, mentions, baselines, done[0], tooLong[0]);
  }

  /**
   * What one mention is scored against: the candidate head words (heads of earlier mentions other than its
   * own, ascending), the right ones among them (heads of earlier mentions of the same entity), and the two
   * baselines' picks.
   */
  record Question(Placed mention, List<Integer> candidates, Set<Integer> right, Placed nearest, Placed headMatch) {

    /** A head's pick: the candidate its row attends to most (ties: the earlier word). */
    int pick(float[] row) {
      int best = candidates.get(0);
      for (int c : candidates) {
        if (row[c] > row[best]) {
          best = c;
        }
      }
      return best;
    }
  }

  /**
   * The question a mention poses, or null when it is not evaluated: it needs an earlier mention of its
   * entity whose head word is not its own.
   */
  static Question question(Placed m, List<Placed> ms) {
    List<Placed> earlier = new ArrayList<>();
    boolean evaluated = false;
    for (Placed e : ms) {
      if (e.start() < m.start()) {
        earlier.add(e);
        evaluated |= e.entity().equals(m.entity()) && e.head() != m.head();
      }
    }
    if (!evaluated) {
      return null;
    }
    // the head words that would be right: heads of earlier mentions of the same entity
    Set<Integer> right = new HashSet<>();
    List<Integer> candidates = new ArrayList<>();
    for (Placed e : earlier) {
      if (e.head() != m.head()) {
        if (!candidates.contains(e.head())) {
          candidates.add(e.head());
        }
        if (e.entity().equals(m.entity())) {
          right.add(e.head());
        }
      }
    }
    candidates.sort(Integer::compare);
    Placed nearest = nearest(earlier, m);
    Placed match = null;
    for (Placed e : earlier) {
      if (e.head() != m.head() && e.headForm().equals(m.headForm()) && (match == null || later(e, match))) {
        match = e;
      }
    }
    return new Question(m, candidates, right, nearest, match == null ? nearest : match);
  }

  static void score(Window w, float[][][][] maps, long[][][] correct, long[] mentions, Map<String, long[]> baselines) {
    for (Placed m : w.mentions()) {
      Question q = question(m, w.mentions());
      if (q == null) {
        continue;
      }
      MentionType[] types = {MentionType.ALL, m.type()};
      for (MentionType t : types) {
        mentions[t.ordinal()]++;
      }
      for (int l = 0; l < maps.length; l++) {
        for (int h = 0; h < maps[l].length; h++) {
          if (q.right().contains(q.pick(maps[l][h][m.head()]))) {
            for (MentionType t : types) {
              correct[l][h][t.ordinal()]++;
            }
          }
        }
      }
      for (MentionType t : types) {
        if (q.right().contains(q.nearest().head())) {
          baselines.get(NEAREST)[t.ordinal()]++;
        }
        if (q.right().contains(q.headMatch().head())) {
          baselines.get(HEAD_MATCH)[t.ordinal()]++;
        }
      }
    }
  }

  /** The earlier mention with the latest start, then end, whose head is not the mention's own. */
  private static Placed nearest(List<Placed> earlier, Placed m) {
    Placed best = null;
    for (Placed e : earlier) {
      if (e.head() != m.head() && (best == null || later(e, best))) {
        best = e;
      }
    }
    return best;
  }

  private static boolean later(Placed a, Placed b) {
    return a.start() > b.start() || (a.start() == b.start() && a.end() > b.end());
  }

  /** Documents cut into windows of whole sentences (see the class comment). */
  static List<Window> windows(BertModel model, Treebank treebank, int window, int[] tooLong) {
    int max = model.tokenizer().maxLength();
    List<Window> out = new ArrayList<>();
    List<Sentence> current = new ArrayList<>();
    int pieces = 2;
    String document = null;
    for (Sentence s : treebank.sentences()) {
      int p = model.tokenizer().encodeWords(s.words().stream().map(Word::form).toList()).encoding().length() - 2;
      boolean newDoc = !s.document().equals(document);
      if (!current.isEmpty() && (newDoc || pieces + p > window)) {
        out.add(window(model, current));
        current = new ArrayList<>();
        pieces = 2;
      }
      document = s.document();
      if (p + 2 > window) {
        if (p + 2 <= max) {
          out.add(window(model, List.of(s))); // a long sentence is a window of its own
        } else {
          tooLong[0]++;
        }
        continue;
      }
      current.add(s);
      pieces += p;
    }
    if (!current.isEmpty()) {
      out.add(window(model, current));
    }
    return out;
  }

  private static Window window(BertModel model, List<Sentence> sentences) {
    List<String> words = new ArrayList<>();
    List<Placed> mentions = new ArrayList<>();
    for (Sentence s : sentences) {
      int offset = words.size();
      for (Mention m : s.mentions()) {
        Word head = s.word(m.head());
        mentions.add(new Placed(m.entity(), offset + m.start(), offset + m.end(), offset + m.head(),
            head.form().toLowerCase(Locale.ROOT), MentionType.of(head.upos())));
      }
      s.words().forEach(w -> words.add(w.form()));
    }
    mentions.sort(java.util.Comparator.comparingInt(Placed::start).thenComparingInt(Placed::end));
    return new Window(sentences.get(0).document(), List.copyOf(words), model.tokenizer().encodeWords(words), mentions);
  }
}
