package io.headscope.model.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.core.HeadScopeException;
import java.net.URI;
import java.net.http.HttpRequest;
import org.junit.jupiter.api.Test;

/**
 * {@code HF_TOKEN} for gated models: the header is built for the Hub's own host and no other, and a 401 or 403 is
 * one line that says what to do. The header-building functions are tested directly (nothing here listens on a
 * port); the token below is made up.
 */
class HubTokenTest {
  private static final URI HUB = URI.create("https://huggingface.co");
  private static final String TOKEN = "hf_madeUpTokenForTheTest0123456789";

  @Test
  void theTokenGoesToTheHubAsABearerHeader() {
    URI file = URI.create("https://huggingface.co/meta-llama/Llama-3.2-1B/resolve/main/config.json");
    HttpRequest r = HubClient.request(file, HUB, TOKEN).GET().build();
    assertThat(r.headers().firstValue("Authorization")).hasValue("Bearer " + TOKEN);
    assertThat(HubClient.authorization(URI.create("https://HuggingFace.co:443/x"), HUB, TOKEN)).isPresent();
  }

  @Test
  void theTokenNeverLeavesTheHub() {
    // the CDN a gated file redirects to (signed already), a look-alike host, another port, plain http
    for (String other : new String[] {"https://cdn-lfs.huggingface.co/repos/ab/cd/file?X-Amz-Signature=1",
        "https://cas-bridge.xethub.hf.co/xet-bridge/x", "https://huggingface.co.example.org/x",
        "https://huggingface.co:8443/x", "http://huggingface.co/x"}) {
      HttpRequest r = HubClient.request(URI.create(other), HUB, TOKEN).GET().build();
      assertThat(r.headers().firstValue("Authorization")).as(other).isEmpty();
    }
  }

  @Test
  void noTokenNoHeader() {
    URI file = URI.create("https://huggingface.co/bert-base-uncased/resolve/main/config.json");
    assertThat(HubClient.request(file, HUB, null).GET().build().headers().firstValue("Authorization")).isEmpty();
    assertThat(HubClient.checkedToken("  ")).isNull();
    assertThat(HubClient.checkedToken(" " + TOKEN + "\n")).isEqualTo(TOKEN); // a pasted line's ends trimmed
  }

  @Test
  void aTokenThatCouldSplitTheHeaderIsRefusedWithoutEchoingIt() {
    assertThatThrownBy(() -> HubClient.checkedToken("hf_abc\r\nX-Evil: 1"))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("HF_TOKEN")
        .hasMessageNotContaining("hf_abc")
        .hasMessageNotContaining("\n");
  }

  @Test
  void aRefusalIsOneLineThatSaysToSetTheToken() {
    HubModelId id = HubModelId.parse("hf:meta-llama/Llama-3.2-1B");
    String without = HubClient.refusal("huggingface.co", id, 401, false);
    assertThat(without).contains("gated: set HF_TOKEN").contains("401").doesNotContain("\n");
    String with = HubClient.refusal("huggingface.co", id, 403, true);
    assertThat(with).contains("HF_TOKEN").contains("may not read it").doesNotContain("\n").doesNotContain(TOKEN);
  }
}
