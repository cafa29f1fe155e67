package io.headscope.model.tokenizer;

/**
 * An input built from given words, with the word each token belongs to.
 *
 * @param encoding {@code [CLS] pieces... [SEP]}
 * @param wordOfToken for each token, its word: 0 for {@code [CLS]}, 1..n for the words, n + 1 for
 *     {@code [SEP]}
 * @param words n + 2: the words with {@code [CLS]} and {@code [SEP]} as words of their own
 * @param fits whether the model can take it (no longer than its maximum)
 */
public record WordEncoding(Encoding encoding, int[] wordOfToken, int words, boolean fits) {}
