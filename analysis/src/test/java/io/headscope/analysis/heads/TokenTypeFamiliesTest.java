package io.headscope.analysis.heads;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Clark et al.'s token types as each family spells its tokens. */
class TokenTypeFamiliesTest {
  @Test
  void robertaStartAndEndTokensAreClsAndSep() {
    assertThat(TokenType.of("<s>")).isEqualTo(TokenType.CLS);
    assertThat(TokenType.of("</s>")).isEqualTo(TokenType.SEP);
    assertThat(TokenType.of("[CLS]")).isEqualTo(TokenType.CLS);
  }

  @Test
  void punctuationWithASpaceMarkIsPunctuation() {
    assertThat(TokenType.of("\u0120,")).isEqualTo(TokenType.PUNCT);
    assertThat(TokenType.of("\u2581.")).isEqualTo(TokenType.PUNCT);
    assertThat(TokenType.of("\u0120cat")).isEqualTo(TokenType.OTHER);
    assertThat(TokenType.of("<pad>")).isEqualTo(TokenType.OTHER);
  }
}
