package io.headscope.analysis.circuits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.analysis.circuits.HeadDetectors.Kind;
import io.headscope.model.BertModel;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.testing.families.FamilyModelFolders;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The detectors' patterns written out by hand, the score on hand-made maps, and every head against its own run. */
class HeadDetectorsTest {
  @TempDir static Path dir;

  @Test
  void thePatternsAreTransformerLensesOnAHandSequence() {
    long[] ids = {9, 3, 5, 3, 5}; // tokens: B a b a b
    assertThat(HeadDetectors.pattern(Kind.PREVIOUS_TOKEN, ids)).isDeepEqualTo(new double[][] {
        {0, 0, 0, 0, 0}, {1, 0, 0, 0, 0}, {0, 1, 0, 0, 0}, {0, 0, 1, 0, 0}, {0, 0, 0, 1, 0}});
    // a at 3 repeats a at 1; b at 4 repeats b at 2
    assertThat(HeadDetectors.pattern(Kind.DUPLICATE_TOKEN, ids)).isDeepEqualTo(new double[][] {
        {0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, {0, 1, 0, 0, 0}, {0, 0, 1, 0, 0}});
    // induction: a at 3 looks at what followed the earlier a (b at 2); b at 4 at what followed b at 2 (a at 3)
    assertThat(HeadDetectors.pattern(Kind.INDUCTION, ids)).isDeepEqualTo(new double[][] {
        {0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, {0, 0, 1, 0, 0}, {0, 0, 0, 1, 0}});
  }

  @Test
  void theScoreIsTheShareOfAttentionOnThePattern() {
    double[][] previous = HeadDetectors.pattern(Kind.PREVIOUS_TOKEN, new long[] {1, 2, 3});
    float[][] exact = {{1, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    assertThat(HeadDetectors.score(exact, previous)).isCloseTo(2.0 / 3, within(1e-12)); // row 0 has no previous token
    float[][] half = {{1, 0, 0}, {0.5f, 0.5f, 0}, {0.25f, 0.25f, 0.5f}};
    assertThat(HeadDetectors.score(half, previous)).isCloseTo((0.5 + 0.25) / 3, within(1e-7));
  }

  @Test
  void theInputsAreRandomTokensWrittenTwiceInsideTheSpecialTokens() {
    try (BertModel model = BertModel.load(TinyBert.create(2, 2, 4).writeTo(dir.resolve("seq")))) {
      List<Encoding> in = HeadDetectors.repeatedRandomTokens(model, 6, 3, 0);
      assertThat(in).hasSize(3);
      for (Encoding e : in) {
        assertThat(e.length()).isEqualTo(14);
        assertThat(e.tokens().get(0)).isEqualTo("[CLS]");
        assertThat(e.tokens().get(13)).isEqualTo("[SEP]");
        for (int i = 1; i <= 6; i++) {
          assertThat(e.ids()[i]).isEqualTo(e.ids()[i + 6]);
          assertThat(model.tokenizer().specialIds()).doesNotContain(e.ids()[i]);
        }
      }
      assertThat(in.get(0).ids()).isNotEqualTo(in.get(1).ids());
      assertThat(HeadDetectors.repeatedRandomTokens(model, 6, 3, 0).get(2).ids()).isEqualTo(in.get(2).ids());
    }
  }

  @Test
  void everyHeadsScoreIsItsMapsShareAveragedOverTheInputsForAnEncoderAndADecoder() {
    for (io.headscope.model.store.ModelFiles files : List.of(TinyBert.create(2, 3, 5).writeTo(dir.resolve("bert")),
        FamilyModelFolders.write("gpt2", dir.resolve("gpt2"), 5))) {
      try (BertModel model = BertModel.load(files)) {
        HeadDetectors.Result r = HeadDetectors.detect(model, 5, 2, 1);
        List<Encoding> in = HeadDetectors.repeatedRandomTokens(model, 5, 2, 1);
        for (int l = 0; l < r.layers(); l++) {
          for (int h = 0; h < r.heads(); h++) {
            double[] want = new double[3];
            for (Encoding e : in) {
              // each input alone, the sums written out here
              float[][] map = model.run(RunRequest.of(e).capture(Capture.points(HookPoint.Kind.ATTN_PATTERN))).cache()
                  .get(HookPoint.pattern(l)).matrix(e.length(), e.length(), 0, h);
              long[] ids = e.ids();
              double prev = 0;
              double dup = 0;
              double ind = 0;
              for (int i = 0; i < ids.length; i++) {
                for (int j = 0; j < i; j++) {
                  prev += j == i - 1 ? map[i][j] : 0;
                  dup += ids[j] == ids[i] ? map[i][j] : 0;
                  ind += ids[j] == ids[i] ? map[i][j + 1] : 0;
                }
              }
              want[0] += prev / ids.length / in.size(); // each row sums to 1
              want[1] += dup / ids.length / in.size();
              want[2] += ind / ids.length / in.size();
            }
            assertThat(r.score(Kind.PREVIOUS_TOKEN, l, h)).isCloseTo(want[0], within(1e-5));
            assertThat(r.score(Kind.DUPLICATE_TOKEN, l, h)).isCloseTo(want[1], within(1e-5));
            assertThat(r.score(Kind.INDUCTION, l, h)).isCloseTo(want[2], within(1e-5));
          }
        }
      }
    }
  }
}
