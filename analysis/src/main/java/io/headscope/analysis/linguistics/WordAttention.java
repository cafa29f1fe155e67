package io.headscope.analysis.linguistics;

import java.util.ArrayList;
import java.util.List;

/**
 * Word-level attention (Clark et al. 2019): attention <em>to</em> a word is the sum over its
 * wordpieces, attention <em>from</em> a word is the mean over its wordpieces, so each word-level row
 * still sums to 1. {@code [CLS]} and {@code [SEP]} are words of their own.
 */
public final class WordAttention {
  private WordAttention() {}

  /**
   * The word-level map of a wordpiece map.
   *
   * @param map {@code [query piece][key piece]}
   * @param wordOf the word of each piece (0-based, non-decreasing)
   * @param words the number of words
   */
  public static float[][] toWords(float[][] map, int[] wordOf, int words) {
    int n = map.length;
    double[][] sum = new double[words][words];
    int[] pieces = new int[words];
    for (int q = 0; q < n; q++) {
      pieces[wordOf[q]]++;
      double[] row = sum[wordOf[q]];
      for (int k = 0; k < n; k++) {
        row[wordOf[k]] += map[q][k]; // to a word: the sum over its pieces
      }
    }
    float[][] out = new float[words][words];
    for (int w = 0; w < words; w++) {
      for (int v = 0; v < words; v++) {
        out[w][v] = pieces[w] == 0 ? 0f : (float) (sum[w][v] / pieces[w]); // from a word: the mean
      }
    }
    return out;
  }

  /**
   * The words of typed text's tokens, by the tokenizer's own spelling of word starts. WordPiece (BERT,
   * DistilBERT, ELECTRA): a piece starting with {@code ##} continues the word before it. Byte-level BPE
   * (RoBERTa, GPT-2) marks a word that follows a space with {@code Ġ}, SentencePiece (ALBERT, XLM-R) every
   * word with {@code ▁}: a token without the mark continues the word before it when both are letters or
   * digits where they meet (so {@code Ġcat} + {@code s} is one word, {@code Ġcat} + {@code .} two, as the
   * pre-tokenizers split them). Special tokens ({@code [CLS]}, {@code <s>}, {@code [MASK]}, ...) are words
   * of their own. A word is shown without its marks.
   */
  public static Words of(List<String> tokens) {
    String mark = tokens.stream().anyMatch(t -> t.startsWith("\u0120")) ? "\u0120"
        : tokens.stream().anyMatch(t -> t.startsWith("\u2581")) ? "\u2581" : null;
    int[] wordOf = new int[tokens.size()];
    List<String> words = new ArrayList<>();
    for (int t = 0; t < tokens.size(); t++) {
      String tok = tokens.get(t);
      boolean afterWord = t > 0 && !isSpecial(tokens.get(t - 1)) && !isSpecial(tok);
      boolean continues;
      String piece;
      if (mark == null) {
        continues = tok.startsWith("##") && afterWord;
        piece = continues ? tok.substring(2) : tok;
      } else {
        String before = tokens.get(t - 1 < 0 ? 0 : t - 1);
        // a lone mark (a space the vocabulary did not merge with what follows) opens the word after it
        continues = afterWord && !tok.startsWith(mark) && !tok.isEmpty()
            && (before.equals(mark) || Character.isLetterOrDigit(tok.charAt(0)) && Character.isLetterOrDigit(last(before)));
        piece = tok.startsWith(mark) ? tok.substring(1) : tok;
      }
      if (continues) {
        int w = words.size() - 1;
        words.set(w, words.get(w) + piece);
      } else {
        words.add(piece);
      }
      wordOf[t] = words.size() - 1;
    }
    return new Words(List.copyOf(words), wordOf);
  }

  private static char last(String s) {
    return s.isEmpty() ? ' ' : s.charAt(s.length() - 1);
  }

  /** The words and, for each wordpiece, its word's index. */
  public record Words(List<String> words, int[] wordOf) {
    public float[][] map(float[][] pieceMap) {
      return toWords(pieceMap, wordOf, words.size());
    }
  }

  private static boolean isSpecial(String token) {
    String tok = token.strip(); // a mask that took the space before it is shown " <mask>"
    return tok.length() > 2 && (tok.startsWith("[") && tok.endsWith("]") || tok.startsWith("<") && tok.endsWith(">"));
  }
}
