package io.headscope.model.tokenizer;

import java.util.List;

/**
 * One input as the model sees it: {@code [CLS] a [SEP]} or {@code [CLS] a [SEP] b [SEP]}.
 *
 * @param tokens the wordpieces, special tokens included
 * @param ids vocabulary ids, one per token
 * @param segments token type ids: 0 for {@code [CLS] a [SEP]}, 1 for {@code b [SEP]}
 * @param secondStart index of the first token of {@code b}, or -1 for a single sentence
 * @param droppedWordpieces wordpieces cut to fit the model's maximum length (0 when nothing was cut)
 */
public record Encoding(
    List<String> tokens, long[] ids, long[] segments, int secondStart, int droppedWordpieces) {

  public Encoding {
    tokens = List.copyOf(tokens);
    if (ids.length != tokens.size() || segments.length != tokens.size()) {
      throw new IllegalArgumentException(
          "tokens, ids and segments differ in length: "
              + tokens.size() + ", " + ids.length + ", " + segments.length);
    }
  }

  public int length() {
    return ids.length;
  }

  public boolean isPair() {
    return secondStart >= 0;
  }

  public boolean wasTruncated() {
    return droppedWordpieces > 0;
  }
}
