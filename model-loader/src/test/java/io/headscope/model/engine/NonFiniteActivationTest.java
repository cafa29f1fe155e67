package io.headscope.model.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Weights that are finite but huge pass the load check, then overflow float32 in the forward pass: every
 * pass stops with one line naming the first layer whose output is not finite (issue 39, G07).
 *
 * <p>The overflow is made so that it does not depend on the order of any sum: layer {@code l}'s
 * feed-forward bias is 3e38 everywhere and its output weights are 1 everywhere, so each pre-activation is
 * 3e38 plus a few units (3e38 in float32, whose spacing there is about 2e31), GELU keeps it (Φ(3e38) = 1),
 * and each output is a sum of 2d terms of 3e38 in which every partial sum of two or more terms is at
 * least 6e38, past float32's largest 3.4e38: +Inf, whatever the order. LayerNorm of a row of +Inf is
 * NaN (Inf - Inf). The layers below are untouched, so their outputs are finite.
 */
class NonFiniteActivationTest {
  @TempDir Path dir;

  static TinyBert overflowingAt(int layers, int layer) {
    String p = "encoder.layer." + layer + ".";
    return TinyBert.create(layers, 2, 7)
        .edit(p + "intermediate.dense.bias", b -> Arrays.fill(b, 3e38f))
        .edit(p + "output.dense.weight", w -> Arrays.fill(w, 1f));
  }

  @Test
  void aMiddleLayerThatOverflowsStopsEveryKindOfPassNamingIt() {
    try (BertModel m = BertModel.load(overflowingAt(3, 1).writeTo(dir.resolve("mid")))) {
      Encoding in = m.encode("the [MASK] sat on the mat .", null);
      long live = m.liveNativeArrays();
      // the maps and predictions (trace), the full run with every layer kept, a gradient pass
      assertThatThrownBy(() -> m.trace(in)).isInstanceOf(HeadScopeException.class)
          .hasMessageStartingWith("The forward pass produced NaN/Inf at layer 2:");
      assertThatThrownBy(() -> m.run(RunRequest.of(in).capture(Capture.points(HookPoint.Kind.RESID_POST))))
          .isInstanceOf(HeadScopeException.class).hasMessageStartingWith("The forward pass produced NaN/Inf at layer 2:");
      assertThatThrownBy(() -> m.gradient(GradientRequest.headMask(in, new int[] {2}, new long[] {5})))
          .isInstanceOf(HeadScopeException.class).hasMessageStartingWith("The forward pass produced NaN/Inf at layer 2:");
      assertThat(m.liveNativeArrays()).as("nothing of the stopped passes stays in native memory")
          .isEqualTo(live);
    }
  }

  /** The last layer of a run that reads the [MASK] only computes that row: the check is there too. */
  @Test
  void theLastLayerOfAReadingRunIsCheckedToo() {
    try (BertModel m = BertModel.load(overflowingAt(2, 1).writeTo(dir.resolve("last")))) {
      assertThatThrownBy(() -> m.trace(m.encode("the [MASK] sat .", null))).isInstanceOf(HeadScopeException.class)
          .hasMessageStartingWith("The forward pass produced NaN/Inf at layer 2:");
    }
  }

  /** Word and position embeddings of 3e38 each sum to 6e38: +Inf before the first layer. */
  @Test
  void embeddingsThatOverflowAreNamed() {
    TinyBert t = TinyBert.create(2, 2, 7)
        .edit("embeddings.word_embeddings.weight", w -> Arrays.fill(w, 3e38f))
        .edit("embeddings.position_embeddings.weight", w -> Arrays.fill(w, 3e38f));
    try (BertModel m = BertModel.load(t.writeTo(dir.resolve("emb")))) {
      assertThatThrownBy(() -> m.trace(m.encode("the cat", null))).isInstanceOf(HeadScopeException.class)
          .hasMessageStartingWith("The forward pass produced NaN/Inf at the embeddings:");
    }
  }

  /**
   * The check itself: a finite sum settles it; finite values whose sum overflows (3e38 + 3e38) pass on
   * max and min; NaN, +Inf and -Inf anywhere stop it, whatever else the array holds.
   */
  @Test
  void theCheckTellsOverflowingSumsFromNonFiniteValues() {
    try (ai.djl.ndarray.NDManager m = ai.djl.ndarray.NDManager.newBaseManager(ai.djl.Device.cpu(), "PyTorch")) {
      assertThat(BertEncoder.finite(m.create(new float[] {1f, -2f, 3f}), 1).toFloatArray()).containsExactly(1f, -2f, 3f);
      BertEncoder.finite(m.create(new float[] {3e38f, 3e38f, -1f}), 1); // the sum is +Inf, every value finite
      BertEncoder.finite(m.create(new float[] {-3e38f, -3e38f}), 1);
      for (float bad : new float[] {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY}) {
        assertThatThrownBy(() -> BertEncoder.finite(m.create(new float[] {1f, bad, -1f}), 4))
            .isInstanceOf(HeadScopeException.class).hasMessageStartingWith("The forward pass produced NaN/Inf at layer 4:");
      }
      assertThatThrownBy(() -> BertEncoder.finite(m.create(new float[] {Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY}),
          BertEncoder.HEAD)).hasMessageStartingWith("The forward pass produced NaN/Inf at the model's head");
    }
  }

  /** The check passes finite numbers through untouched: the same model without the edit runs. */
  @Test
  void finiteActivationsPass() {
    try (BertModel m = BertModel.load(TinyBert.create(3, 2, 7).writeTo(dir.resolve("fine")))) {
      assertThat(m.trace(m.encode("the [MASK] sat .", null)).predictions()).isNotEmpty();
      assertThat(m.run(RunRequest.of(List.of(m.encode("the cat", null), m.encode("a dog ran", null)))).lengths())
          .containsExactly(4, 5); // padded: the check sees the padding rows' finite values too
    }
  }
}
