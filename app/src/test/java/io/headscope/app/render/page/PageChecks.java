package io.headscope.app.render.page;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.headscope.analysis.export.JsonExport;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What every page must satisfy, on any model: shared by the tiny-model and the bert-base tests. */
final class PageChecks {
  private PageChecks() {}

  /** The JSON `headscope attention` writes for the same input (the command's own call). */
  static JsonNode attentionJson(BertModel bert, String text, String pair) throws IOException {
    AttentionTrace t = bert.trace(TraceRequest.of(bert.encode(text, pair)).layerNorms(false)).get(0);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    JsonExport.attention(t, t.layerNorms(), false, out);
    return new ObjectMapper().readTree(out.toByteArray());
  }

  /** The page's maps against the attention JSON: the same tokens, each value within the page's stated bound. */
  static double mapsMatch(PageReader p, JsonNode att) {
    assertEquals(att.get("tokens"), p.data.get("tokens"));
    assertEquals(att.get("layers").asInt(), p.layers);
    double worst = 0;
    JsonNode a = att.get("attention");
    for (int l = 0; l < p.layers; l++) {
      for (int h = 0; h < p.heads; h++) {
        for (int i = 0; i < p.n; i++) {
          for (int j = 0; j < p.n; j++) {
            float want = (float) a.get(l).get(h).get(i).get(j).asDouble();
            float got = p.map(p.intact, l, h, i, j);
            if (p.mapBound == 0) {
              assertEquals(want, got, 0f, "map " + l + "," + h + "," + i + "," + j);
            }
            worst = Math.max(worst, Math.abs((double) want - got));
          }
        }
      }
    }
    assertTrue(worst <= p.mapBound + 1e-7, "worst " + worst + " past the bound " + p.mapBound);
    return worst;
  }

  /**
   * The neuron view's softmax(q.k/sqrt(dh)) from the stored q and k against the stored map: within 1e-5 when
   * exact; quantised, within the bound the stored vectors allow (scores off by at most e, so each weight by at
   * most a factor e^(2e)) plus the map's bound. Returns the largest difference seen.
   */
  static double neuronConsistent(PageReader p, boolean causal) {
    double worst = 0;
    for (int l = 0; l < p.layers; l++) {
      for (int h = 0; h < p.heads; h++) {
        for (int i = 0; i < p.n; i++) {
          double[] s = p.softmax(l, h, i, causal);
          double grow = Math.expm1(2 * p.scoreBound(l, h, i));
          for (int j = 0; j < p.n; j++) {
            double a = p.map(p.intact, l, h, i, j);
            double diff = Math.abs(s[j] - a);
            double bound = Math.max(a + p.mapBound, s[j]) * grow + p.mapBound + 1e-5;
            assertTrue(diff <= bound, "head " + (l + 1) + "-" + (h + 1) + " query " + i + " key " + j + ": softmax "
                + s[j] + ", map " + a + ", bound " + bound);
            worst = Math.max(worst, diff);
          }
        }
      }
    }
    return worst;
  }

  /** The data block and the script carry no markup; the policy allows no network and only the page's own code. */
  static void safe(PageReader p) {
    String html = p.html;
    Matcher blocks = Pattern.compile("<script([^>]*)>(.*?)</script>", Pattern.DOTALL).matcher(html);
    int count = 0;
    String script = null;
    while (blocks.find()) {
      count++;
      String body = blocks.group(2);
      assertFalse(body.toLowerCase(java.util.Locale.ROOT).contains("<img"), "an <img inside a script block");
      assertFalse(body.toLowerCase(java.util.Locale.ROOT).contains("</script"), "</script inside a script block");
      assertFalse(body.contains("<!--"), "<!-- inside a script block");
      if (blocks.group(1).contains("application/json")) {
        assertFalse(body.contains("<") || body.contains(">") || body.contains("&"), "raw < > & in the data");
        assertFalse(body.contains("\u2028") || body.contains("\u2029"), "a raw line separator in the data");
      } else {
        script = body;
      }
    }
    assertEquals(2, count, "the data block and the script, nothing else");
    Matcher csp = Pattern.compile("<meta http-equiv=\"Content-Security-Policy\" content=\"([^\"]*)\">").matcher(html);
    assertTrue(csp.find(), "a Content-Security-Policy meta tag");
    String policy = csp.group(1);
    assertTrue(policy.startsWith("default-src 'none';"), policy);
    assertTrue(policy.contains("script-src '" + InteractivePage.sha256(script) + "'"), policy);
    Matcher style = Pattern.compile("<style>(.*?)</style>", Pattern.DOTALL).matcher(html);
    assertTrue(style.find());
    assertTrue(policy.contains("style-src '" + InteractivePage.sha256(style.group(1)) + "'"), policy);
    assertFalse(policy.contains("unsafe"), policy);
    assertFalse(html.contains("http://") || html.contains("https://"), "an address in the page");
    assertTrue(html.indexOf(PageReader.OPEN) < html.indexOf("<script>"));
  }
}
