package io.headscope.app.render.page;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.testing.FullModel;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The page on bert-base-uncased: a 128-token input stays under 5 MB (with and without heads off), its maps
 * are the attention JSON's within the stated bound, and the neuron view's softmax within its own.
 */
@Tag("full-model")
class InteractivePageFullModelTest {
  static final long FIVE_MB = 5_000_000;

  /** 126 words of plain English: 128 wordpieces with [CLS] and [SEP]. */
  static final String LONG = String.join(" ", Arrays.copyOf(String.join(" ", java.util.Collections.nCopies(20,
      "the quick brown fox jumps over the lazy dog while a small bird sings in the old tree near the river"))
      .split(" "), 126));
  static final String SHORT = "The cat sat on the [MASK] because it was tired and it slept.";

  static PageReader page(BertModel bert, String text, Set<Head> off, String what) {
    long t0 = System.nanoTime();
    byte[] html = InteractivePage.html(PageData.build(bert, text, null, HeadMask.of(off, HeadMask.Mode.ZERO),
        new HeadClassifier()));
    PageReader p = new PageReader(html);
    System.out.printf(Locale.ROOT, "page %s: %d tokens, %d bytes (%.2f MB), maps x%d (bound %.3g), q/k levels %d, %.1f s%n",
        what, p.n, html.length, html.length / 1e6, p.data.get("encoding").get("mapScale").asInt(), p.mapBound,
        p.data.get("encoding").get("qkLevels").asInt(), (System.nanoTime() - t0) / 1e9);
    return p;
  }

  @Test
  void a128TokenPageStaysUnderFiveMegabytesAndKeepsItsBounds() throws Exception {
    BertModel bert = FullModel.uncased();
    PageReader plain = page(bert, LONG, Set.of(), "128 tokens");
    assertEquals(128, plain.n);
    assertTrue(plain.html.length() < FIVE_MB);
    double maps = PageChecks.mapsMatch(plain, PageChecks.attentionJson(bert, LONG, null));
    double neuron = PageChecks.neuronConsistent(plain, false);
    System.out.printf(Locale.ROOT, "128 tokens: maps within %.3g of the JSON; neuron softmax within %.3g of the map%n",
        maps, neuron);
    PageChecks.safe(plain);
    for (String off : new String[] {"5-4,8-10", "1"}) {
      Set<Head> heads = off.equals("1") ? Set.copyOf(Head.all(1, 12)) : Set.of(new Head(4, 3), new Head(7, 9));
      PageReader p = page(bert, LONG, heads, "128 tokens, " + off + " off");
      assertTrue(p.html.getBytes(java.nio.charset.StandardCharsets.UTF_8).length < FIVE_MB);
      double m = PageChecks.mapsMatch(p, PageChecks.attentionJson(bert, LONG, null));
      double n = PageChecks.neuronConsistent(p, false);
      System.out.printf(Locale.ROOT, "128 tokens, %s off: maps within %.3g of the JSON; neuron softmax within %.3g%n",
          off, m, n);
    }
  }

  @Test
  void aShortPageIsExact() throws Exception {
    BertModel bert = FullModel.uncased();
    PageReader p = page(bert, SHORT, Set.of(new Head(4, 3), new Head(7, 9)), "short");
    assertEquals("exact", p.data.get("encoding").get("kind").asText());
    assertEquals(0.0, PageChecks.mapsMatch(p, PageChecks.attentionJson(bert, SHORT, null)));
    double neuron = PageChecks.neuronConsistent(p, false);
    System.out.printf(Locale.ROOT, "short: neuron softmax within %.3g of the map%n", neuron);
    assertTrue(neuron < 1e-5);
  }
}
