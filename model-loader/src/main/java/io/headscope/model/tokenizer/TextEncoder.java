package io.headscope.model.tokenizer;

import java.util.List;
import java.util.Set;

/**
 * Turns text into a model's input ids, whatever the family: BERT, DistilBERT and ELECTRA (WordPiece),
 * RoBERTa and GPT-2 (byte-level BPE), XLM-RoBERTa and ALBERT (Unigram / SentencePiece).
 *
 * <p>The special tokens around the text are the tokenizer's own ({@code [CLS] a [SEP]}, {@code <s> a
 * </s>}, none for GPT-2); an encoding is cut to {@link #maxLength()} by dropping the last token of
 * the longer sentence. A special token typed literally in the text ({@code [MASK]}, {@code <mask>})
 * stays that special token.
 */
public interface TextEncoder extends AutoCloseable {
  /** Returned by {@link #maskId()} for a model without a mask token (GPT-2). Never a vocabulary id. */
  long NO_TOKEN = -1;

  /** One sentence with the tokenizer's special tokens around it. */
  default Encoding encode(String a) {
    return encode(a, null);
  }

  /**
   * A pair of sentences (or one when {@code b} is null) laid out by the tokenizer's template.
   *
   * @throws io.headscope.model.core.HeadScopeException if {@code a}, or a non-null {@code b}, has no
   *     token at all
   */
  default Encoding encode(String a, String b) {
    return annotate(a, b).encoding();
  }

  /** {@link #encode(String, String)} with the special positions and the word of each token. */
  AnnotatedEncoding annotate(String a, String b);

  /** The tokens of one sentence: no special tokens added, nothing cut. */
  List<String> tokenize(String text);

  /**
   * A sentence given as its words (a treebank's syntactic words), each tokenized on its own, with the
   * single-sentence special tokens around them. Nothing is cut: {@link WordEncoding#fits()} says
   * whether the model can take it.
   */
  WordEncoding encodeWords(List<String> words);

  /**
   * The id of a word that is a single token of this model, for targets such as {@code ablate --target
   * her}: the word as it reads in mid-sentence (an uncased model lower-cases it, a byte-level model
   * gives it its leading space {@code Ġ}); a token spelled as the vocabulary spells it ({@code ##ing},
   * {@code Ġher}, {@code ▁her}) is also accepted.
   *
   * @throws io.headscope.model.core.HeadScopeException naming the word and its tokens if it is not one
   *     token, or "is not in this model's vocabulary" if it would be read as the unknown token ({@code
   *     [UNK]}, {@code <unk>}): a target that is the unknown token follows every unknown word at once
   */
  long singleTokenId(String word);

  /**
   * The one vocabulary check of every command and screen that follows a word ({@code --target} and
   * {@code --contrast} of lens, saliency, patch and ablate, their screens, the Python bridge through
   * the commands): both ids by {@link #singleTokenId}, and a contrast that is the target's own token
   * refused, since every difference against itself is 0 and says nothing.
   *
   * @param target the followed word, or null for none (then {@code contrast} must be null too)
   * @param contrast the contrast word, or null for none
   * @return {@code {target id, contrast id}}, {@link #NO_TOKEN} for a word not given
   */
  default long[] targetAndContrast(String target, String contrast) {
    long t = target == null ? NO_TOKEN : singleTokenId(target);
    long c = contrast == null ? NO_TOKEN : singleTokenId(contrast);
    if (c != NO_TOKEN && c == t) {
      throw new io.headscope.model.core.HeadScopeException("The contrast " + quoted(contrast) + " is the target "
          + quoted(target) + " itself (the token " + vocabToken(t) + "): a difference with itself is 0 everywhere; "
          + "give another contrast.");
    }
    return new long[] {t, c};
  }

  /** The refusal of a word the vocabulary does not hold as one token; {@code why} follows a colon. */
  static io.headscope.model.core.HeadScopeException notInVocabulary(String word, String why) {
    return new io.headscope.model.core.HeadScopeException(quoted(word) + " is not in this model's vocabulary"
        + (why == null || why.isEmpty() ? "." : ": " + why));
  }

  /** A word as messages show it: in single quotes, on one line (control characters escaped as backslash, u and four hex digits). */
  static String quoted(String word) {
    StringBuilder b = new StringBuilder("'");
    String w = word == null ? "" : word;
    for (int i = 0; i < w.length(); i++) {
      char ch = w.charAt(i);
      if (Character.isISOControl(ch) || ch == '\u2028' || ch == '\u2029') {
        b.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) ch));
      } else {
        b.append(ch);
      }
    }
    return b.append('\'').toString();
  }

  /** The most tokens an encoding may have, special tokens included. */
  int maxLength();

  /** The id of the mask token ({@code [MASK]}, {@code <mask>}), or {@link #NO_TOKEN} if there is none. */
  long maskId();

  /**
   * The ids of the special tokens: those of the template ({@code [CLS]}, {@code </s>}) and every
   * token the tokenizer marks special ({@code [PAD]}, {@code <unk>}, {@code <mask>}, ...).
   */
  Set<Long> specialIds();

  /** The token of a vocabulary id; an id the tokenizer has no token for is shown as {@code <id N>}. */
  String vocabToken(long id);

  /** One more than the largest id of the vocabulary. */
  int vocabSize();

  @Override
  void close();
}
