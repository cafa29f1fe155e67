package io.headscope.model.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Head lists as every option reads them (--disable, --favor, ...): "L11" is a whole layer, as "11" is. */
class HeadListTest {
  @ParameterizedTest
  @ValueSource(strings = {"11", "11-*", "L11", "l11", " L11 ", "L11-*"})
  void everyFormOfAWholeLayerNamesItsTwelveHeads(String spec) {
    assertThat(Head.parseList(spec, 12, 12)).isEqualTo(Head.parseList("11-1,11-2,11-3,11-4,11-5,11-6,11-7,11-8,"
        + "11-9,11-10,11-11,11-12", 12, 12)).hasSize(12);
  }

  @Test
  void aWholeLayerMixesWithSingleHeads() {
    assertThat(Head.parseList("8-10,L2", 2 + 10, 12)).hasSize(13).contains(new Head(7, 9), new Head(1, 0), new Head(1, 11));
  }

  @Test
  void aLayerPastTheModelIsRefusedNamingTheItemAsWritten() {
    assertThatThrownBy(() -> Head.parseList("L13", 12, 12)).hasMessageContaining("no layer 13 in \"L13\"");
  }

  @ParameterizedTest
  @ValueSource(strings = {"L", "L-1", "LL11", "Lx", "L11-3-2"})
  void malformedLayerNamesAreRefused(String spec) {
    assertThatThrownBy(() -> Head.parseList(spec, 12, 12)).isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("L7");
  }
}
