package io.headscope.analysis.lens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.model.BertModel;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.engine.RunResult;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.testing.families.FamilyModelFolders;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogitLensTest {
  @TempDir Path dir;

  @Test
  void bertLastLayerIsTheModelsOwnPredictionBitForBitAndAnEarlierLayerIsTheHeadByHand() {
    ModelFiles files = TinyBert.create(3, 2, 7).writeTo(dir.resolve("bert"));
    try (BertModel model = BertModel.load(files)) {
      Encoding in = model.encode("the cat sat on the [MASK] .", null);
      float[] own = own(model, in);
      long target = argMax(own);
      LensResult lens = new LogitLens(model).run(in, target, -1, 5);
      assertThat(lens.rows()).hasSize(4); // embeddings + 3 layers, one mask
      LensRow last = lens.rows().get(3);
      assertThat(last.point()).isEqualTo("blocks.2.hook_resid_post");
      assertThat(last.targetRank()).isEqualTo(1);
      assertThat(last.targetProb()).isEqualTo((double) own[(int) target]);
      float[] lastDist = lensDistribution(model, in, HookPoint.residPost(2));
      assertThat(lastDist).isEqualTo(own); // every bit of every probability

      // layer 1's stream through cls.predictions by hand, from the checkpoint's tensors
      int pos = last.position();
      float[] h = stream(model, in, HookPoint.residPost(0), pos);
      double[] hand = HandHead.bert(files.weights(), "bert.", h, model.config().layerNormEps());
      float[] engine = lensDistribution(model, in, HookPoint.residPost(0));
      for (int v = 0; v < hand.length; v++) {
        assertThat((double) engine[v]).isCloseTo(hand[v], within(1e-5));
      }
      assertThat(lens.rows().get(1).targetProb()).isEqualTo((double) engine[(int) target]);
    }
  }

  @Test
  void gpt2LensAppliesLnFThenTheTiedDecoderAtTheLastToken() {
    ModelFiles files = FamilyModelFolders.write("gpt2", dir.resolve("gpt2"), 11);
    try (BertModel model = BertModel.load(files)) {
      Encoding in = model.encode("the cat sat on the", null);
      float[] own = own(model, in);
      int layers = model.config().numHiddenLayers();
      LensResult lens = new LogitLens(model).run(in, argMax(own), -1, 3);
      assertThat(lens.rows()).hasSize(layers + 1);
      assertThat(lens.rows().get(0).position()).isEqualTo(in.length() - 1);
      assertThat(lensDistribution(model, in, HookPoint.residPost(layers - 1))).isEqualTo(own);
      float[] h = stream(model, in, HookPoint.embed(), in.length() - 1);
      double[] hand = HandHead.gpt2(files.weights(), h, model.config().layerNormEps());
      float[] engine = lensDistribution(model, in, HookPoint.embed());
      for (int v = 0; v < hand.length; v++) {
        assertThat((double) engine[v]).isCloseTo(hand[v], within(1e-5));
      }
    }
  }

  /** The model's own distribution at the first read position, from a plain run. */
  static float[] own(BertModel model, Encoding in) {
    return model.run(RunRequest.of(in).read(Readouts.none().withMaskedLm(ReadPositions.readoutId(model))))
        .maskedLm().get(0).get(0).probabilities();
  }

  private static float[] lensDistribution(BertModel model, Encoding in, HookPoint p) {
    RunResult r = model.run(RunRequest.of(in).capture(Capture.points(p.kind())));
    return new LogitLens(model).head(in, r.cache().get(p)).get(0).probabilities();
  }

  private static float[] stream(BertModel model, Encoding in, HookPoint p, int pos) {
    RunResult r = model.run(RunRequest.of(in).capture(Capture.points(p.kind())));
    return r.cache().get(p).vector(model.config().hiddenSize(), 0, pos);
  }

  static long argMax(float[] p) {
    int best = 0;
    for (int i = 1; i < p.length; i++) {
      if (p[i] > p[best]) {
        best = i;
      }
    }
    return best;
  }
}
