package io.headscope.model.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.core.BertConfig;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.testing.TinyBert;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The full list of hook points is pinned: adding, removing or renaming one is a decision, not an accident. */
class HookPointTest {
  private final BertConfig twoLayers = TinyBert.create(2, 4, 1).config();

  @Test
  void everyPointOfATwoLayerModelInForwardOrder() {
    List<String> names = HookPoint.all(twoLayers).stream().map(HookPoint::name).toList();
    List<String> perLayer = List.of("hook_resid_pre", "attn.hook_q", "attn.hook_k", "attn.hook_v",
        "attn.hook_scores", "attn.hook_pattern", "attn.hook_z", "attn.hook_result", "hook_attn_out",
        "hook_resid_mid", "mlp.hook_pre", "mlp.hook_post", "hook_mlp_out", "hook_resid_post");
    java.util.ArrayList<String> expected = new java.util.ArrayList<>();
    expected.add("hook_embed");
    for (int l = 0; l < 2; l++) {
      for (String s : perLayer) {
        expected.add("blocks." + l + "." + s);
      }
    }
    expected.add("hook_final");
    assertThat(names).containsExactlyElementsOf(expected);
  }

  @Test
  void namesParseBackToTheirPoints() {
    for (HookPoint p : HookPoint.all(twoLayers)) {
      assertThat(HookPoint.parse(p.name(), twoLayers)).isEqualTo(p);
    }
  }

  @Test
  void aPointTheModelDoesNotHaveIsAnErrorNamingTheValidOnes() {
    assertThatThrownBy(() -> HookPoint.parse("blocks.2.attn.hook_pattern", twoLayers))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("blocks.2.attn.hook_pattern")
        .hasMessageContaining("blocks.{0..1}")
        .hasMessageContaining("attn.hook_pattern")
        .hasMessageContaining("hook_final");
    assertThatThrownBy(() -> HookPoint.parse("blocks.0.attn.hook_attn", twoLayers))
        .isInstanceOf(HeadScopeException.class);
    assertThatThrownBy(() -> HookPoint.pattern(5).checkIn(twoLayers)).isInstanceOf(HeadScopeException.class);
  }

  @Test
  void layerlessPointsTakeNoLayerAndLayerPointsNeedOne() {
    assertThatThrownBy(() -> new HookPoint(HookPoint.Kind.EMBED, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new HookPoint(HookPoint.Kind.ATTN_Z, -1)).isInstanceOf(IllegalArgumentException.class);
  }
}
