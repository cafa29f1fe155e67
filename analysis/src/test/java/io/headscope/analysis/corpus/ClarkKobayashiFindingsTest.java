package io.headscope.analysis.corpus;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.analysis.heads.HeadPattern;
import io.headscope.analysis.heads.LayerTokenTypes;
import io.headscope.analysis.heads.TokenTypeShares;
import io.headscope.model.testing.FullModel;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The papers' findings on the shipped English pairs with bert-base-uncased (METHODS.md): Clark et al.'s
 * token-type attention per layer and Kobayashi et al.'s fall of [SEP] under norm weighting. The one
 * full-model corpus run of this module; its per-layer table is printed for the report.
 */
@Tag("full-model")
class ClarkKobayashiFindingsTest {
  private static CorpusResult result;

  @BeforeAll
  static void runCorpus() {
    Corpus pairs = CorpusReader.resource("/headscope/corpus/english-pairs.txt");
    long t0 = System.nanoTime();
    result = new CorpusAnalysis(FullModel.uncased()).run(pairs, CorpusAnalysis.Progress.NONE, () -> false);
    System.out.printf(Locale.ROOT, "%d pairs in %.1f s%n", result.inputs(), (System.nanoTime() - t0) / 1e9);
    System.out.println("layer   cls    sep  punct  other | n.cls  n.sep n.punct n.other");
    for (LayerTokenTypes l : result.perLayer()) {
      TokenTypeShares w = l.weight();
      TokenTypeShares n = l.norm();
      System.out.printf(Locale.ROOT, "%5d %6.3f %6.3f %6.3f %6.3f | %6.3f %6.3f %6.3f %6.3f%n", l.layer() + 1,
          w.cls(), w.sep(), w.punct(), w.other(), n.cls(), n.sep(), n.punct(), n.other());
    }
    System.out.println("model-wide category shares: " + result.modelShares());
  }

  private static TokenTypeShares weight(int layer1) {
    return result.perLayer().get(layer1 - 1).weight();
  }

  private static TokenTypeShares norm(int layer1) {
    return result.perLayer().get(layer1 - 1).norm();
  }

  @Test
  void everyPairWasAnalysed() {
    assertThat(result.corpus().problems()).isEmpty();
    assertThat(result.inputs()).isGreaterThanOrEqualTo(150);
  }

  @Test
  void layersSixToTenSendOverHalfTheirAttentionToSep() {
    double mean = 0;
    for (int l = 6; l <= 10; l++) {
      mean += weight(l).sep() / 5;
    }
    assertThat(mean).isGreaterThan(0.5);
  }

  @Test
  void layersTwoToFourFavourClsOverTheirOtherLayers() {
    // Clark et al.'s Figure 2: [CLS] gets its largest share in layers 2-4, more than in any later layer.
    double early = List.of(2, 3, 4).stream().mapToDouble(l -> weight(l).cls()).average().orElseThrow();
    for (int l = 5; l <= 12; l++) {
      assertThat(weight(l).cls()).as("layer %d [CLS] share", l).isLessThan(early);
    }
    assertThat(weight(1).cls()).isLessThan(early);
  }

  @Test
  void lastTwoLayersFavourPunctuation() {
    // Clark et al.: attention to . and , peaks in layers 11-12, above its share in layers 6-10.
    for (int l = 11; l <= 12; l++) {
      for (int mid = 6; mid <= 10; mid++) {
        assertThat(weight(l).punct()).as("layer %d vs %d punct", l, mid).isGreaterThan(weight(mid).punct());
      }
    }
  }

  @Test
  void underNormWeightingSepLosesMoreThanHalfItsShareInLayersSixToTen() {
    for (int l = 6; l <= 10; l++) {
      assertThat(norm(l).sep()).as("layer %d", l).isLessThan(weight(l).sep() / 2);
    }
  }

  @Test
  void categorySharesSumToOne() {
    assertThat(result.modelShares().values().stream().mapToDouble(Double::doubleValue).sum())
        .isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(result.modelShares()).containsKeys(HeadPattern.values());
  }
}
