package io.headscope.analysis.favor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.BertModel;
import io.headscope.model.store.ProgressListener;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** FAVOR+ as Choromanski et al. define it: an unbiased kernel, errors that fall with m, ORF no worse than iid. */
class FavorTest {
  @TempDir static Path dir;
  static BertModel model;

  @BeforeAll
  static void load() {
    model = BertModel.load(TinyBert.create(2, 4, 17).writeTo(dir.resolve("tiny")));
  }

  @AfterAll
  static void close() {
    model.close();
  }

  @Test
  void theKernelEstimateIsUnbiasedWithinItsStandardError() {
    Random r = new Random(3);
    int dh = 8;
    double[] q = new double[dh];
    double[] k = new double[dh];
    for (int i = 0; i < dh; i++) {
      q[i] = 0.4 * r.nextGaussian();
      k[i] = 0.4 * r.nextGaussian();
    }
    double exact = 0;
    for (int i = 0; i < dh; i++) {
      exact += q[i] * k[i];
    }
    exact = Math.exp(exact);
    for (RandomFeatures.Kind kind : RandomFeatures.Kind.values()) {
      int draws = 4000;
      double[] est = new double[draws];
      for (int d = 0; d < draws; d++) {
        est[d] = Favor.kernel(q, k, RandomFeatures.draw(kind, 8, dh, new Random(1000 + d)));
      }
      double mean = FavorAnalysis.mean(est);
      double se = FavorAnalysis.sd(est) / Math.sqrt(draws);
      assertThat(mean).as(kind + ": within 4 standard errors").isCloseTo(exact, within(4 * se));
      assertThat(se).isLessThan(0.05 * exact); // the check is tight enough to mean something
    }
  }

  @Test
  void orfDirectionsAreOrthogonalWithinABlockAndGaussianInLength() {
    double[][] w = RandomFeatures.draw(RandomFeatures.Kind.ORF, 16, 8, new Random(5));
    for (int a = 0; a < 8; a++) {
      for (int b = a + 1; b < 8; b++) {
        double dot = 0;
        for (int c = 0; c < 8; c++) {
          dot += w[a][c] * w[b][c];
        }
        assertThat(dot).isCloseTo(0, within(1e-9));
      }
    }
  }

  @Test
  void mapErrorFallsWithMOnEveryHeadAndOrfIsNoWorseThanIidOnAverage() {
    Encoding e = model.encode("the cat sat on the mat and the dog ran .", null);
    FavorAnalysis.Options o = new FavorAnalysis.Options(new int[] {16, 256}, 8, 1,
        List.of(RandomFeatures.Kind.ORF, RandomFeatures.Kind.IID), false);
    FavorAnalysis.Result r = FavorAnalysis.run(model, List.of(e), o, ProgressListener.NONE, () -> false);
    double orf = 0;
    double iid = 0;
    for (FavorAnalysis.Row small : r.rows()) {
      if (small.features() != 16 || small.head() < 0) {
        continue;
      }
      FavorAnalysis.Row large = r.rows().stream().filter(x -> x.features() == 256 && x.layer() == small.layer()
          && x.head() == small.head() && x.kind() == small.kind()).findFirst().orElseThrow();
      assertThat(large.mapError()).as("%d-%d %s", small.layer(), small.head(), small.kind())
          .isLessThan(small.mapError());
      if (small.kind() == RandomFeatures.Kind.ORF) {
        orf += small.mapError();
      } else {
        iid += small.mapError();
      }
    }
    assertThat(orf).as("ORF against iid, summed over heads at m = 16").isLessThanOrEqualTo(iid);
  }

  /**
   * The estimator's variance grows with exp(|q|^2 + |k|^2): on the random tiny model, whose queries
   * and keys are long, it needs millions of features. A model with shorter queries and keys (their
   * weights scaled by 0.25) shows the convergence at a testable m.
   */
  @Test
  void aHeadOnFavorWithManyFeaturesPredictsAsTheExactModelAndWithFewItDiffers() {
    TinyBert calm = TinyBert.create(2, 4, 17);
    for (int l = 0; l < 2; l++) {
      for (String w : List.of("query", "key")) {
        calm.edit("encoder.layer." + l + ".attention.self." + w + ".weight", a -> {
          for (int i = 0; i < a.length; i++) {
            a[i] *= 0.25f;
          }
        });
      }
    }
    FavorAnalysis.Result r;
    try (BertModel m = BertModel.load(calm.writeTo(dir.resolve("calm")))) {
      Encoding e = m.encode("the [MASK] sat on the mat .", null);
      FavorAnalysis.Options o = new FavorAnalysis.Options(new int[] {2, 65536}, 1, 1, List.of(RandomFeatures.Kind.ORF), true);
      r = FavorAnalysis.run(m, List.of(e), o, ProgressListener.NONE, () -> false);
    }
    double fewMax = 0;
    for (FavorAnalysis.Row row : r.rows()) {
      if (row.head() < 0) {
        continue;
      }
      if (row.features() == 65536) {
        assertThat(Math.abs(row.deltaLogprob())).as("%d-%d", row.layer(), row.head()).isLessThan(0.02);
      } else {
        fewMax = Math.max(fewMax, Math.abs(row.deltaLogprob()));
      }
      assertThat(row.offDeltaLogprob()).isNotNaN();
    }
    assertThat(fewMax).as("with two features some head's replacement changes the prediction").isGreaterThan(0.02);
    assertThat(r.fullModelAgreement()[1][0]).isEqualTo(1.0);
  }
}
