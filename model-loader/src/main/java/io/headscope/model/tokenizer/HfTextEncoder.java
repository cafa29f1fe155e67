package io.headscope.model.tokenizer;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.tokenizer.SpecialTemplate.Piece;
import io.headscope.model.tokenizer.SpecialTemplate.Sentence;
import io.headscope.model.tokenizer.SpecialTemplate.Special;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A {@link TextEncoder} for any Hugging Face {@code tokenizer.json}: byte-level BPE (RoBERTa, GPT-2),
 * Unigram (XLM-RoBERTa, ALBERT) and WordPiece (DistilBERT, ELECTRA).
 *
 * <p>Hugging Face's tokenizer (through DJL) splits each sentence with its own normalizer,
 * pre-tokenizer and model, with its special tokens, truncation and padding switched off; the special
 * tokens and segment ids are then laid out here from the tokenizer's own {@code post_processor} (see
 * {@link SpecialTemplate}), so that truncation can drop whole tokens of the longer sentence as {@link
 * BertTextEncoder} does. Special tokens typed in the text are Hugging Face's added tokens and stay
 * single tokens.
 */
public final class HfTextEncoder implements TextEncoder {
  private final HuggingFaceTokenizer hf;
  private final TokenizerFacts facts;
  private final int maxLength;

  private HfTextEncoder(HuggingFaceTokenizer hf, TokenizerFacts facts, int maxLength) {
    this.hf = hf;
    this.facts = facts;
    this.maxLength = maxLength;
  }

  /**
   * Opens the tokenizer in {@code tokenizerJson}.
   *
   * @param maxLength the most tokens an encoding may have, special tokens included; at least room
   *     for the pair template with one token of each sentence
   * @throws HeadScopeException if the file is missing, not JSON or a tokenizer HeadScope cannot read
   */
  public static HfTextEncoder open(Path tokenizerJson, int maxLength) {
    return open(TokenizerFacts.read(tokenizerJson), maxLength);
  }

  static HfTextEncoder open(TokenizerFacts facts, int maxLength) {
    int least = minLength(facts);
    if (maxLength < least) {
      throw new IllegalArgumentException("maxLength " + maxLength + " < " + least);
    }
    HuggingFaceTokenizer hf;
    try {
      hf = HuggingFaceTokenizer.newInstance(
          facts.file,
          Map.of("addSpecialTokens", "false", "truncation", "false", "padding", "false"));
    } catch (IOException | RuntimeException e) {
      throw new HeadScopeException(
          "Cannot load the tokenizer " + facts.file + ": " + firstLine(e.getMessage()) + ".", e);
    }
    return new HfTextEncoder(hf, facts, maxLength);
  }

  /** The pair template's special tokens and one token of each sentence. */
  static int minLength(TokenizerFacts facts) {
    return facts.template.specialCount(true) + 2;
  }

  @Override
  public AnnotatedEncoding annotate(String a, String b) {
    // Blank text is no sentence, though a byte-level model would encode its spaces.
    Pieces first = pieces(a == null || a.isBlank() ? "" : a);
    if (first.size() == 0) {
      throw new HeadScopeException("The text is empty: type a sentence.");
    }
    Pieces second = null;
    if (b != null) {
      second = pieces(b.isBlank() ? "" : b);
      if (second.size() == 0) {
        throw new HeadScopeException(
            "The second sentence is empty: type a second sentence, or leave it out to encode one sentence.");
      }
    }
    List<Piece> template = second == null ? facts.template.single() : facts.template.pair();

    // Google's _truncate_seq_pair: the last token of the longer sentence goes (of the second on a tie).
    int na = first.size();
    int nb = second == null ? 0 : second.size();
    int budget = maxLength - facts.template.specialCount(second != null);
    while (na + nb > budget) {
      if (na > nb) {
        na--;
      } else {
        nb--;
      }
    }
    int dropped = first.size() - na + (second == null ? 0 : second.size() - nb);

    int n = na + nb + facts.template.specialCount(second != null);
    List<String> tokens = new ArrayList<>(n);
    long[] ids = new long[n];
    long[] segments = new long[n];
    boolean[] special = new boolean[n];
    int[] wordOf = new int[n];
    int t = 0;
    int secondStart = -1;
    int wordsOfA = first.words(na);
    for (Piece p : template) {
      if (p instanceof Special s) {
        tokens.add(s.token());
        ids[t] = s.id();
        segments[t] = s.typeId();
        special[t] = true;
        wordOf[t] = -1;
        t++;
      } else if (p instanceof Sentence s) {
        Pieces from = s.first() ? first : second;
        int count = s.first() ? na : nb;
        int wordBase = s.first() ? 0 : wordsOfA;
        if (!s.first()) {
          secondStart = t;
        }
        for (int i = 0; i < count; i++) {
          tokens.add(from.tokens[i]);
          ids[t] = from.ids[i];
          segments[t] = s.typeId();
          wordOf[t] = wordBase + from.wordOf[i];
          t++;
        }
      }
    }
    int words = wordsOfA + (second == null ? 0 : second.words(nb));
    return new AnnotatedEncoding(new Encoding(tokens, ids, segments, secondStart, dropped), special, wordOf, words);
  }

  @Override
  public List<String> tokenize(String text) {
    return List.of(pieces(text == null ? "" : text).tokens);
  }

  /**
   * Each word is tokenized on its own; every word after the first is given the space that precedes
   * it in running text, so a byte-level model sees {@code Ġword} as it does in mid-sentence (Unigram
   * models prefix {@code ▁} to every word anyway, WordPiece ignores the space). A word that gives no
   * token at all becomes the unknown token.
   *
   * <p>The words are numbered as {@link BertTextEncoder#encodeWords} does: the special tokens before
   * the sentence are word 0, the words 1..n, those after it n + 1, even when a template has none
   * (GPT-2), so word maps of every family have the same shape.
   */
  @Override
  public WordEncoding encodeWords(List<String> words) {
    List<String> tokens = new ArrayList<>();
    List<Long> ids = new ArrayList<>();
    List<Integer> wordOf = new ArrayList<>();
    boolean seenSentence = false;
    for (Piece p : facts.template.single()) {
      if (p instanceof Special s) {
        tokens.add(s.token());
        ids.add(s.id());
        wordOf.add(seenSentence ? words.size() + 1 : 0);
        continue;
      }
      seenSentence = true;
      for (int w = 0; w < words.size(); w++) {
        Pieces piece = pieces(w == 0 ? words.get(w) : " " + words.get(w));
        if (piece.size() == 0) {
          if (facts.unkId < 0) {
            throw new HeadScopeException("The word \"" + words.get(w) + "\" gives no token, and "
                + facts.file + " has no unknown token to stand for it.");
          }
          tokens.add(facts.idToToken[(int) facts.unkId]);
          ids.add(facts.unkId);
          wordOf.add(w + 1);
        }
        for (int i = 0; i < piece.size(); i++) {
          tokens.add(piece.tokens[i]);
          ids.add(piece.ids[i]);
          wordOf.add(w + 1);
        }
      }
    }
    long[] idArray = ids.stream().mapToLong(Long::longValue).toArray();
    Encoding e = new Encoding(tokens, idArray, new long[idArray.length], -1, 0);
    return new WordEncoding(e, wordOf.stream().mapToInt(Integer::intValue).toArray(), words.size() + 2,
        idArray.length <= maxLength);
  }

  @Override
  public long singleTokenId(String word) {
    String w = word == null ? "" : word;
    Long asSpelled = facts.tokenToId.get(w);
    Pieces inSentence = pieces(" " + w);
    if (inSentence.size() == 1 && (inSentence.ids[0] != facts.unkId || asSpelled != null)) {
      return inSentence.ids[0];
    }
    if (asSpelled != null) {
      return asSpelled;
    }
    if (inSentence.size() == 1) {
      // the unknown token stands for every word the vocabulary lacks: following it follows none of them
      throw TextEncoder.notInVocabulary(word, "it would be read as "
          + vocabToken(facts.unkId) + ".");
    }
    throw TextEncoder.notInVocabulary(word, "it is " + (inSentence.size() == 0 ? "no token"
        : inSentence.size() + " tokens (" + String.join(" ", inSentence.tokens) + ")")
        + "; give a word that is a single token.");
  }

  @Override
  public int maxLength() {
    return maxLength;
  }

  @Override
  public long maskId() {
    return facts.maskId;
  }

  @Override
  public Set<Long> specialIds() {
    return Set.copyOf(facts.specialIds);
  }

  @Override
  public String vocabToken(long id) {
    if (id < 0) {
      throw new IllegalArgumentException("negative token id " + id);
    }
    if (id < facts.idToToken.length && facts.idToToken[(int) id] != null) {
      return facts.idToToken[(int) id];
    }
    return "<id " + id + ">";
  }

  @Override
  public int vocabSize() {
    return facts.idToToken.length;
  }

  @Override
  public void close() {
    hf.close();
  }

  // --- the tokens of one sentence ----------------------------------------------------------

  /**
   * @param wordOf for each token its word in this sentence, from 0, non-decreasing in steps of one
   */
  private record Pieces(String[] tokens, long[] ids, int[] wordOf) {
    int size() {
      return ids.length;
    }

    /** The number of words among the first {@code kept} tokens. */
    int words(int kept) {
      return kept == 0 ? 0 : wordOf[kept - 1] + 1;
    }
  }

  private Pieces pieces(String text) {
    ai.djl.huggingface.tokenizers.Encoding e =
        hf.encode(GoogleTextRules.withoutUnpairedSurrogates(text), false, false);
    long[] ids = e.getIds();
    String[] tokens = e.getTokens();
    for (int i = 0; i < ids.length; i++) {
      // Hugging Face names an added token by the text it matched: " <mask>" when the token takes the
      // space before it. The vocabulary's spelling is the token.
      if (ids[i] >= 0 && ids[i] < facts.idToToken.length && facts.idToToken[(int) ids[i]] != null) {
        tokens[i] = facts.idToToken[(int) ids[i]];
      }
    }
    return new Pieces(tokens, ids, wordRuns(e.getWordIds()));
  }

  /**
   * The word of each token, from 0, from Hugging Face's word ids: a word is a run of tokens with the
   * same pre-tokenizer word id. Hugging Face numbers words again from 0 after an added token and
   * gives the added token itself none (-1), so runs, not the raw ids, keep words distinct and in order.
   */
  static int[] wordRuns(long[] hfWords) {
    int[] wordOf = new int[hfWords.length];
    for (int i = 0; i < hfWords.length; i++) {
      boolean continues = i > 0 && hfWords[i] >= 0 && hfWords[i] == hfWords[i - 1];
      wordOf[i] = i == 0 ? 0 : continues ? wordOf[i - 1] : wordOf[i - 1] + 1;
    }
    return wordOf;
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unknown error";
    }
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }
}
