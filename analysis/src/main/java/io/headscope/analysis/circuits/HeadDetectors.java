package io.headscope.analysis.circuits;

import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.engine.RunResult;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * TransformerLens's head detector ({@code transformer_lens.head_detector.detect_head}, its default
 * {@code error_measure="mul"}, nothing excluded): a head's score for a detection pattern D (T x T, 0/1, lower
 * triangular) is {@code sum(A * D) / sum(A)}, the share of its attention that falls where D says, averaged over
 * the inputs. The three patterns, from the input's token ids:
 * <ul>
 *   <li><b>previous token</b>: {@code D[i][i-1] = 1};
 *   <li><b>duplicate token</b>: {@code D[i][j] = 1} for {@code j < i} with the same token as i;
 *   <li><b>induction</b>: the duplicate pattern shifted one key to the right: {@code D[i][j] = 1} for
 *       {@code 1 <= j <= i} where token {@code j - 1} equals token i (attend to what followed the token's
 *       earlier occurrence), column 0 empty.
 * </ul>
 * The inputs are repeated random tokens, as TransformerLens's demos use: {@code n} tokens drawn uniformly from
 * the vocabulary (special and bracketed tokens left out), written twice, inside the model's own special tokens
 * ({@code [CLS] r r [SEP]} for BERT; GPT-2 as it encodes text here, without a BOS token). For an encoder the map
 * is not triangular; the pattern still counts only earlier keys and {@code sum(A)} is the number of rows, so the
 * score is the share of all attention on those keys.
 */
public final class HeadDetectors {
  private HeadDetectors() {}

  public enum Kind {
    PREVIOUS_TOKEN("previous_token"),
    DUPLICATE_TOKEN("duplicate_token"),
    INDUCTION("induction");

    private final String column;

    Kind(String column) {
      this.column = column;
    }

    public String column() {
      return column;
    }
  }

  /**
   * @param scores {@code [kind ordinal][layer][head]}, each the mean over the inputs
   */
  public record Result(int layers, int heads, int inputs, int repeated, long seed, double[][][] scores) {
    public double score(Kind k, int layer, int head) {
      return scores[k.ordinal()][layer][head];
    }
  }

  /** The detection pattern of a kind for a sequence of token ids, as TransformerLens builds it. */
  public static double[][] pattern(Kind kind, long[] ids) {
    int t = ids.length;
    double[][] d = new double[t][t];
    for (int i = 0; i < t; i++) {
      for (int j = 0; j < i; j++) {
        switch (kind) {
          case PREVIOUS_TOKEN -> d[i][j] = j == i - 1 ? 1 : 0;
          case DUPLICATE_TOKEN -> d[i][j] = ids[i] == ids[j] ? 1 : 0;
          case INDUCTION -> { } // below
        }
      }
      if (kind == Kind.INDUCTION) {
        for (int j = 1; j <= i; j++) {
          // the duplicate pattern's column j - 1 moved to column j (its diagonal is 0, so j - 1 < i)
          d[i][j] = j - 1 < i && ids[i] == ids[j - 1] ? 1 : 0;
        }
      }
    }
    return d;
  }

  /** {@code sum(A * D) / sum(A)} over one (T, T) map. */
  public static double score(float[][] map, double[][] pattern) {
    double hit = 0;
    double all = 0;
    for (int i = 0; i < map.length; i++) {
      for (int j = 0; j < map[i].length; j++) {
        hit += map[i][j] * pattern[i][j];
        all += map[i][j];
      }
    }
    return hit / all;
  }

  /** {@code inputs} sequences of {@code n} random tokens written twice, inside the model's special tokens. */
  public static List<Encoding> repeatedRandomTokens(BertModel model, int n, int inputs, long seed) {
    if (n < 2 || inputs < 1) {
      throw new HeadScopeException("The repeated random tokens need a length of 2 at least and one input at least.");
    }
    Encoding around = model.encode("a", null);
    int word = around.tokens().indexOf(around.tokens().stream().filter(s -> s.replace("Ġ", "").replace("▁", "")
        .equals("a")).findFirst().orElseThrow(() -> new HeadScopeException("cannot find the word in its encoding")));
    int prefix = word;
    int suffix = around.length() - word - 1;
    if (prefix + 2 * n + suffix > model.tokenizer().maxLength()) {
      throw new HeadScopeException("--length " + n + " makes " + (prefix + 2 * n + suffix) + " tokens, more than the "
          + "model's " + model.tokenizer().maxLength() + ".");
    }
    Set<Long> special = model.tokenizer().specialIds();
    List<Long> pool = new ArrayList<>();
    for (long id = 0; id < model.tokenizer().vocabSize(); id++) {
      String s = model.tokenizer().vocabToken(id);
      if (!special.contains(id) && !(s.startsWith("[") && s.endsWith("]")) && !(s.startsWith("<") && s.endsWith(">"))) {
        pool.add(id);
      }
    }
    SplittableRandom random = new SplittableRandom(seed);
    List<Encoding> out = new ArrayList<>();
    for (int k = 0; k < inputs; k++) {
      long[] r = new long[n];
      for (int i = 0; i < n; i++) {
        r[i] = pool.get(random.nextInt(pool.size()));
      }
      int t = prefix + 2 * n + suffix;
      long[] ids = new long[t];
      List<String> tokens = new ArrayList<>();
      for (int i = 0; i < t; i++) {
        int inR = i - prefix;
        ids[i] = i < prefix ? around.ids()[i] : inR < 2 * n ? r[inR % n] : around.ids()[word + 1 + (inR - 2 * n)];
        tokens.add(model.tokenizer().vocabToken(ids[i]));
      }
      out.add(new Encoding(tokens, ids, new long[t], -1, 0));
    }
    return out;
  }

  /** Every head's three scores on {@code inputs} sequences of {@code n} random tokens repeated. */
  public static Result detect(BertModel model, int n, int inputs, long seed) {
    List<Encoding> seqs = repeatedRandomTokens(model, n, inputs, seed);
    int layers = model.config().numHiddenLayers();
    int heads = model.config().numAttentionHeads();
    double[][][] scores = new double[Kind.values().length][layers][heads];
    RunResult r = model.run(RunRequest.of(seqs).capture(Capture.points(HookPoint.Kind.ATTN_PATTERN)));
    for (int b = 0; b < seqs.size(); b++) {
      long[] ids = seqs.get(b).ids();
      int t = ids.length;
      double[][][] patterns = new double[Kind.values().length][][];
      for (Kind k : Kind.values()) {
        patterns[k.ordinal()] = pattern(k, ids);
      }
      for (int l = 0; l < layers; l++) {
        Activation a = r.cache().get(HookPoint.pattern(l)); // (B, H, T, T)
        for (int h = 0; h < heads; h++) {
          float[][] map = a.matrix(t, t, b, h);
          for (Kind k : Kind.values()) {
            scores[k.ordinal()][l][h] += score(map, patterns[k.ordinal()]) / seqs.size();
          }
        }
      }
    }
    return new Result(layers, heads, inputs, n, seed, scores);
  }
}
