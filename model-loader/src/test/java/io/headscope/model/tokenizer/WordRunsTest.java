package io.headscope.model.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Hugging Face's word ids become words counted from 0 over the sentence. */
class WordRunsTest {
  /**
   * "a b <mask> c d" as Hugging Face numbers it: a 0, b 1 (two pieces), the added token none (-1),
   * then the ids start again at 0 after it: c 0, d 1. Runs give a 0, b 1, mask 2, c 3, d 4.
   */
  @Test
  void wordIdsAfterAnAddedTokenAreNewWords() {
    assertThat(HfTextEncoder.wordRuns(new long[] {0, 1, 1, -1, 0, 1})).containsExactly(0, 1, 1, 2, 3, 4);
  }

  @Test
  void twoAddedTokensInARowAreTwoWords() {
    assertThat(HfTextEncoder.wordRuns(new long[] {-1, -1, 0, 0})).containsExactly(0, 1, 2, 2);
    assertThat(HfTextEncoder.wordRuns(new long[0])).isEmpty();
  }
}
