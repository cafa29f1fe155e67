package io.headscope.app.render.page;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.headscope.analysis.export.JsonExport;
import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.testing.TinyBert;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The interactive page on a tiny random BERT: its numbers, its predictions, its escaping and its policy. */
class InteractivePageTest {
  static final String TEXT = "the cat sat on the [MASK] .";
  static final String HOSTILE = "</script><img src=x onerror=alert(1)> & \u2028 <!-- the [MASK]";

  @TempDir static Path dir;
  static BertModel bert;

  @BeforeAll
  static void load() {
    bert = BertModel.load(TinyBert.create(3, 4, 7).writeTo(dir.resolve("tiny")));
  }

  @AfterAll
  static void close() {
    bert.close();
  }

  static PageData page(String text, String pair, Set<Head> off) {
    return PageData.build(bert, text, pair, HeadMask.of(off, HeadMask.Mode.ZERO), new HeadClassifier());
  }

  @Test
  void aShortInputIsStoredExactlyAsTheAttentionCommandWritesIt() throws Exception {
    PageReader p = new PageReader(InteractivePage.html(page(TEXT, "it was red .", Set.of())));
    assertEquals("exact", p.data.get("encoding").get("kind").asText());
    assertEquals(0.0, PageChecks.mapsMatch(p, PageChecks.attentionJson(bert, TEXT, "it was red .")));
    assertTrue(PageChecks.neuronConsistent(p, false) < 1e-5);
    assertEquals(bert.config().numHiddenLayers() * bert.config().numAttentionHeads(), p.data.get("categories").size());
  }

  @Test
  void quantisedMapsStayWithinTheirBoundAndTheNeuronViewWithinItsOwn() throws Exception {
    PageData d = page(TEXT, null, Set.of(new Head(1, 2)));
    for (InteractivePage.Encoding e : InteractivePage.Encoding.LADDER.subList(1, InteractivePage.Encoding.LADDER.size())) {
      PageReader p = new PageReader(InteractivePage.html(d, e));
      assertEquals(e.mapBound(), p.mapBound);
      PageChecks.mapsMatch(p, PageChecks.attentionJson(bert, TEXT, null));
      PageChecks.neuronConsistent(p, false);
      // as run: layer 2's switched-off head is all zeros in zero mode, every value within the bound
      float[][][][] asRun = d.asRun().attention();
      for (int l = 0; l < p.layers; l++) {
        for (int h = 0; h < p.heads; h++) {
          for (int i = 0; i < p.n; i++) {
            for (int j = 0; j < p.n; j++) {
              assertEquals(asRun[l][h][i][j], p.map(p.asRun, l, h, i, j), p.mapBound + 1e-7);
            }
          }
        }
      }
    }
  }

  @Test
  void thePredictionsAreThoseOfPredictWithTheSameHeadsOff() throws Exception {
    Set<Head> off = Set.of(new Head(0, 1), new Head(2, 3));
    PageReader p = new PageReader(InteractivePage.html(page(TEXT, null, off)));
    var input = bert.encode(TEXT, null);
    AttentionTrace intact = bert.trace(TraceRequest.of(input).top(5)).get(0);
    AttentionTrace ablated = bert.trace(TraceRequest.of(input).mask(HeadMask.of(off, HeadMask.Mode.ZERO)).top(5)
        .maps(AttentionTrace.Maps.AS_RUN)).get(0);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    JsonExport.predictions(intact, ablated, bert.classLabels(), out);
    JsonNode want = new ObjectMapper().readTree(out.toByteArray());
    assertEquals(want, p.data.get("predictions"));
    assertTrue(want.get("predictions").get(0).has("before"));
    assertEquals(Set.of("1-2", "3-4"), Set.copyOf(new ObjectMapper().convertValue(p.data.get("disabled"), java.util.List.class)));
    assertNotEquals(p.map(p.intact, 2, 0, 1, 1), p.map(p.asRun, 2, 0, 1, 1));
    assertEquals(p.map(p.intact, 0, 0, 1, 1), p.map(p.asRun, 0, 0, 1, 1), "below the first switched-off layer nothing changes");
  }

  /** Issue 40: the page's neuron view opened on 1-1 at [CLS], not on the head the app showed. */
  @Test
  void theNeuronViewOpensOnTheAppsHeadElseTheFirstOneOff() {
    Set<Head> off = Set.of(new Head(2, 3), new Head(0, 1));
    assertEquals("1-2", new PageReader(InteractivePage.html(page(TEXT, null, off))).data.get("neuronHead").asText());
    assertEquals("3-1", new PageReader(InteractivePage.html(page(TEXT, null, off).focusing(new Head(2, 0))))
        .data.get("neuronHead").asText());
    assertEquals("1-1", new PageReader(InteractivePage.html(page(TEXT, null, Set.of()))).data.get("neuronHead").asText());
  }

  @Test
  void aHostileInputIsDataNeverMarkup() {
    PageReader p = new PageReader(InteractivePage.html(page(HOSTILE, "<b>&amp;</b>", Set.of())));
    PageChecks.safe(p);
    assertEquals(HOSTILE, p.data.get("text").asText());
    assertEquals("<b>&amp;</b>", p.data.get("pair").asText());
    assertTrue(p.html.contains("\\u003c/script\\u003e\\u003cimg src=x onerror=alert(1)\\u003e \\u0026 \\u2028 \\u003c!--"));
  }

  @Test
  void aCausalModelGetsNoCategoriesAndItsNeuronViewMasksTheLaterKeys() {
    try (BertModel gpt2 = BertModel.load(io.headscope.model.testing.families.FamilyModelFolders.write("gpt2",
        dir.resolve("gpt2"), 5))) {
      PageReader p = new PageReader(InteractivePage.html(PageData.build(gpt2, "the cat sat on the mat", null,
          HeadMask.NONE, new HeadClassifier())));
      assertTrue(p.data.get("causal").asBoolean());
      assertTrue(!p.data.has("categories") && p.data.get("categoriesWithheld").asText().contains("causal"));
      assertTrue(PageChecks.neuronConsistent(p, true) < 1e-5);
      assertEquals(0f, p.map(p.intact, 0, 0, 0, 1), "a causal map: the first token sees only itself");
    }
  }

  @Test
  void anEmptyTextIsRefusedInOneLine() {
    HeadScopeException e = assertThrows(HeadScopeException.class, () -> page("  ", null, Set.of()));
    assertEquals("Nothing to show: type a sentence first.", e.getMessage());
  }
}
