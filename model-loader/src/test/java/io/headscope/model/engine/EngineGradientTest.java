package io.headscope.model.engine;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.ndarray.BaseNDManager;
import ai.djl.ndarray.NDArray;
import ai.djl.training.GradientCollector;
import io.headscope.model.core.BertConfig;
import io.headscope.model.checkpoint.Safetensors;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.BertTextEncoder;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a backward pass leaves behind: no gradient on any weight, no open collector, no array. */
class EngineGradientTest {
  @TempDir Path dir;

  @Test
  void weightsNeverGetAGradientAndTheCollectorIsClosed() {
    ModelFiles files = TinyBert.create(2, 4, 3).writeTo(dir.resolve("m"));
    try (Safetensors st = Safetensors.open(files.weights());
        Engine engine = Engine.load(BertConfig.read(files.config()), st);
        BertTextEncoder tok = BertTextEncoder.open(files.tokenizer(), 64)) {
      Encoding e = tok.encode("the [MASK] sat on the mat.");
      engine.gradient(GradientRequest.headMask(e, new int[] {2}, null));
      long before = engine.liveNativeArrays();
      engine.gradient(GradientRequest.headMask(e, new int[] {2}, null));
      engine.gradient(new GradientRequest(e, List.of(), new int[] {2}, null, HookPoint.of(HookPoint.Kind.ATTN_Z, 1)));
      assertThat(engine.liveNativeArrays()).isEqualTo(before);
      for (NDArray w : ((BaseNDManager) engine.manager()).getManagedArrays()) {
        assertThat(w.hasGradient()).as("weights never get a gradient").isFalse();
      }
      // DJL allows one collector at a time: opening another one proves the last was closed
      try (GradientCollector again = engine.manager().getEngine().newGradientCollector()) {
        assertThat(again).isNotNull();
      }
    }
  }
}
