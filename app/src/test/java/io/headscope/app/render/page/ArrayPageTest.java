package io.headscope.app.render.page;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.headscope.analysis.export.NpzReader;
import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.model.core.HeadScopeException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The page for attention given as arrays (BertViz's head_view / model_view): the maps stored are the arrays given,
 * layers and heads picked by include_layers / include_heads keep their own numbers, and the categories appear only
 * where Kovaleva et al. defined them (one sequence's bidirectional attention probabilities).
 */
class ArrayPageTest {
  private static final HeadClassifier CLASSIFIER = new HeadClassifier();

  /** (layers, heads, q, k) with a[l][h][i][j] = 1 + l + 10 h + 100 i + 1000 j, each row scaled to sum 1 when asked. */
  private static double[] maps(int layers, int heads, int q, int k, boolean rows, boolean causal) {
    double[] a = new double[layers * heads * q * k];
    for (int l = 0; l < layers; l++) {
      for (int h = 0; h < heads; h++) {
        for (int i = 0; i < q; i++) {
          double sum = 0;
          int base = ((l * heads + h) * q + i) * k;
          for (int j = 0; j < k; j++) {
            a[base + j] = causal && j > i ? 0 : 1 + l + 10 * h + 100 * i + 1000 * j;
            sum += a[base + j];
          }
          for (int j = 0; rows && j < k; j++) {
            a[base + j] /= sum;
          }
        }
      }
    }
    return a;
  }

  private static NpzReader.Array numbers(double[] v, int... shape) {
    return new NpzReader.Array(shape, v, null, true);
  }

  private static NpzReader.Array ints(int... v) {
    return new NpzReader.Array(new int[] {v.length}, java.util.Arrays.stream(v).asDoubleStream().toArray(), null, false);
  }

  private static NpzReader.Array text(String... s) {
    return new NpzReader.Array(new int[] {s.length}, null, List.of(s), false);
  }

  private static JsonNode data(ArrayPage p) throws Exception {
    String html = new String(p.html("t.npz"), StandardCharsets.UTF_8);
    assertThat(html).contains("Content-Security-Policy").doesNotContain("{{").doesNotContain("<b>x");
    int from = html.indexOf(PageReader.OPEN) + PageReader.OPEN.length();
    return new ObjectMapper().readTree(html.substring(from, html.indexOf("</script>", from)));
  }

  @Test
  void storesTheArraysGivenWithTheLayersAndHeadsPicked() throws Exception {
    double[] a = maps(3, 4, 5, 5, true, false);
    Map<String, NpzReader.Array> in = new LinkedHashMap<>();
    in.put("tokens", text("[CLS]", "<b>x</b>", "&", "b", "[SEP]"));
    in.put("attention", numbers(a, 3, 1, 4, 5, 5)); // a stacked tuple of (1, head, q, k)
    in.put("include_layers", ints(2, 0));
    in.put("include_heads", ints(3));
    in.put("sentence_b_start", ints(3));
    JsonNode d = data(ArrayPage.of(in, CLASSIFIER));
    JsonNode part = d.get("parts").get(0);
    assertThat(part.get("layerNumbers").toString()).isEqualTo("[3,1]");
    assertThat(part.get("headNumbers").toString()).isEqualTo("[4]");
    assertThat(part.get("querySegments").toString()).isEqualTo("[0,0,0,1,1]");
    float[] stored = PageReader.float32(PageReader.bytes(part.get("data").asText()));
    assertThat(stored).hasSize(2 * 25);
    int o = 0;
    for (int l : new int[] {2, 0}) {
      for (int i = 0; i < 25; i++) {
        assertThat(stored[o++]).isEqualTo((float) a[(l * 4 + 3) * 25 + i]);
      }
    }
    assertThat(d.get("tokens").get(1).asText()).isEqualTo("<b>x</b>");
    // bidirectional probabilities: categories, named by the heads' own numbers
    assertThat(part.get("categories")).hasSize(2);
    assertThat(part.get("categories").get(0).get("head").asText()).isEqualTo("3-4");
  }

  @Test
  void categoriesOnlyWhereTheyAreDefined() {
    List<String> t = List.of("a", "b", "c");
    ArrayPage.Part causal = part("attention", maps(1, 2, 3, 3, true, true), t, t);
    assertThat(ArrayPage.categoriesUndefined(causal)).contains("causal");
    ArrayPage.Part raw = part("attention", maps(1, 2, 3, 3, false, false), t, t);
    assertThat(ArrayPage.categoriesUndefined(raw)).contains("not 1");
    ArrayPage.Part cross = part("cross", maps(1, 2, 3, 2, true, false), t, List.of("x", "y"));
    assertThat(ArrayPage.categoriesUndefined(cross)).contains("not square");
    ArrayPage.Part decoder = part("decoder", maps(1, 2, 3, 3, true, false), t, t);
    assertThat(ArrayPage.categoriesUndefined(decoder)).contains("withholds");
    assertThat(ArrayPage.categoriesUndefined(part("encoder", maps(1, 2, 3, 3, true, false), t, t))).isNull();
  }

  @Test
  void anEncoderDecoderIsThreeParts() throws Exception {
    Map<String, NpzReader.Array> in = new LinkedHashMap<>();
    in.put("encoder_tokens", text("a", "b", "c", "d"));
    in.put("decoder_tokens", text("x", "y"));
    in.put("encoder_attention", numbers(maps(2, 2, 4, 4, true, false), 2, 2, 4, 4));
    in.put("decoder_attention", numbers(maps(2, 2, 2, 2, true, true), 2, 2, 2, 2));
    double[] cross = maps(2, 2, 2, 4, true, false);
    in.put("cross_attention", numbers(cross, 2, 2, 2, 4));
    JsonNode d = data(ArrayPage.of(in, CLASSIFIER));
    assertThat(d.get("parts")).hasSize(3);
    JsonNode c = d.get("parts").get(2);
    assertThat(c.get("name").asText()).isEqualTo("cross");
    assertThat(c.get("queryTokens").toString()).isEqualTo("[\"x\",\"y\"]");
    assertThat(c.get("keyTokens").size()).isEqualTo(4);
    float[] stored = PageReader.float32(PageReader.bytes(c.get("data").asText()));
    for (int i = 0; i < cross.length; i++) {
      assertThat(stored[i]).isEqualTo((float) cross[i]);
    }
    assertThat(d.get("parts").get(0).has("categories")).isTrue();
    assertThat(d.get("parts").get(1).get("categoriesWithheld").asText()).contains("causal");
  }

  @Test
  void wrongArraysAreOneMessageEach() {
    Map<String, NpzReader.Array> in = new LinkedHashMap<>();
    in.put("tokens", text("a", "b"));
    in.put("attention", numbers(maps(1, 1, 3, 3, true, false), 1, 1, 3, 3));
    assertThatThrownBy(() -> ArrayPage.of(in, CLASSIFIER)).isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("3 queries x 3 keys, but there are 2 query tokens");
    in.put("tokens", text("a", "b", "c"));
    in.put("weights", ints(1));
    assertThatThrownBy(() -> ArrayPage.of(in, CLASSIFIER)).hasMessageContaining("\"weights\"");
    in.remove("weights");
    double[] nan = maps(1, 1, 3, 3, true, false);
    nan[4] = Double.NaN;
    in.put("attention", numbers(nan, 1, 1, 3, 3));
    assertThatThrownBy(() -> ArrayPage.of(in, CLASSIFIER)).hasMessageContaining("finite");
    in.put("attention", numbers(maps(1, 1, 3, 3, true, false), 1, 2, 1, 3, 3));
    assertThatThrownBy(() -> ArrayPage.of(in, CLASSIFIER)).hasMessageContaining("batch of 2");
    in.remove("attention");
    assertThatThrownBy(() -> ArrayPage.of(in, CLASSIFIER)).hasMessageContaining("needs the arrays tokens and attention");
  }

  private static ArrayPage.Part part(String name, double[] a, List<String> q, List<String> k) {
    float[] f = new float[a.length];
    for (int i = 0; i < a.length; i++) {
      f[i] = (float) a[i];
    }
    int heads = 2;
    int layers = a.length / (heads * q.size() * k.size());
    return new ArrayPage.Part(name, q, k, new int[q.size()], new int[k.size()], f, layers, heads, new int[] {1},
        new int[] {1, 2}, null, null);
  }
}
