package io.headscope.model.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.checkpoint.Safetensors;
import io.headscope.model.core.BertConfig;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.BertTextEncoder;
import io.headscope.model.tokenizer.Encoding;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A backward pass reads only memory the forward pass kept alive: with the Java collector run between
 * the two, and the freed native memory written over with NaN, every gradient is the bits it is without.
 * DJL's {@code NDArray.mul(Number)} and kin once broke this (see {@code Scalars}): fine-tuning went to
 * NaN in about one JVM in ten, and in every run with a collection forced here.
 */
class CollectionBetweenPassesTest {
  @TempDir Path dir;

  /**
   * @param act erf GELU with head size 4 (the scores scaled by 1/2, a power of two, before the product),
   *     or tanh GELU with head size 3 (scaled by 1/sqrt(3) after it): both code paths of the scores
   */
  @ParameterizedTest
  @ValueSource(strings = {"gelu", "gelu_new"})
  void aCollectionBetweenForwardAndBackwardChangesNoGradient(String act) {
    int heads = 4;
    int dh = act.equals("gelu") ? 4 : 3;
    int d = heads * dh;
    BertConfig config = new BertConfig(TinyBert.VOCAB.size(), d, 2, heads, 2 * d, act, 64, 2, 1e-12, List.of());
    ModelFiles files = TinyBert.create(config, 5).writeTo(dir.resolve(act));
    try (Safetensors st = Safetensors.open(files.weights());
        Engine engine = Engine.load(BertConfig.read(files.config()), st);
        BertTextEncoder tok = BertTextEncoder.open(files.tokenizer(), 64)) {
      Encoding e = tok.encode("the [MASK] sat on the mat near a big dog .");
      int[] at = {2};
      GradientResult quiet = engine.gradient(GradientRequest.headMask(e, at, null));
      List<ByteBuffer> filler = new ArrayList<>();
      TensorIntervention collect = (hooks, batch) -> hooks.intervene(HookPoint.fin(), x -> {
        collectAndOverwriteFreedMemory(filler);
        return x;
      });
      GradientResult collected = engine.gradient(new GradientRequest(e, List.of(collect), at, null, null));
      assertThat(filler).as("the intervention ran between the passes").isNotEmpty();
      double[][] a = quiet.headMask();
      double[][] b = collected.headMask();
      for (int l = 0; l < a.length; l++) {
        for (int h = 0; h < a[l].length; h++) {
          assertThat(Double.isFinite(a[l][h])).as("layer %d head %d", l, h).isTrue();
          assertThat(b[l][h]).as("layer %d head %d", l, h).isEqualTo(a[l][h]);
        }
      }
    }
  }

  /**
   * Runs the collector until the direct buffers nothing references are freed, then takes small native
   * blocks, likely the freed ones, and fills them with NaN: a pass reading freed memory then reads NaN.
   */
  private static void collectAndOverwriteFreedMemory(List<ByteBuffer> keep) {
    for (int i = 0; i < 3; i++) {
      System.gc();
      try {
        Thread.sleep(20); // the buffers' cleaner runs on its own thread
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
      }
    }
    for (int i = 0; i < 2000; i++) {
      ByteBuffer b = ByteBuffer.allocateDirect(4 + 4 * (i % 4));
      while (b.remaining() >= 4) {
        b.putFloat(Float.NaN);
      }
      keep.add(b);
    }
  }
}
