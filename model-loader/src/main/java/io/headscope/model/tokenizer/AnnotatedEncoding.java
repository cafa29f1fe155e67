package io.headscope.model.tokenizer;

/**
 * An encoding of typed text with what a word-level view needs.
 *
 * @param encoding the input as the model sees it
 * @param special for each token, whether the template put it there ({@code [CLS]}, {@code </s>}); a
 *     special token typed in the text is not a template token and belongs to a word
 * @param wordOfToken for each token, its word, counted from 0 over both sentences (the words of
 *     {@code b} follow those of {@code a}), or -1 for a template token. The words are the tokenizer's
 *     own (its pre-tokenizer's): BERT splits off punctuation, a byte-level BPE splits {@code don't}
 *     into {@code don} and {@code 't}, SentencePiece splits only at spaces
 * @param words the number of words
 */
public record AnnotatedEncoding(Encoding encoding, boolean[] special, int[] wordOfToken, int words) {
  public AnnotatedEncoding {
    if (special.length != encoding.length() || wordOfToken.length != encoding.length()) {
      throw new IllegalArgumentException("special and wordOfToken must have one entry per token");
    }
  }
}
