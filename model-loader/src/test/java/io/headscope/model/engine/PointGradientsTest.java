package io.headscope.model.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

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

/**
 * Many points from one backward pass against one point per pass ({@link GradientRequest}, whose point is a
 * leaf): at a layer's input and at the next layer's input together, the lower one must still see every
 * path, which a leaf at the upper one would cut.
 */
class PointGradientsTest {
  @TempDir Path dir;

  @Test
  void manyPointsInOnePassEqualEachPointAlone() {
    ModelFiles files = TinyBert.create(2, 4, 3).writeTo(dir.resolve("m"));
    try (Safetensors st = Safetensors.open(files.weights());
        Engine engine = Engine.load(BertConfig.read(files.config()), st);
        BertTextEncoder tok = BertTextEncoder.open(files.tokenizer(), 64)) {
      Encoding e = tok.encode("the [MASK] sat on the mat.");
      List<HookPoint> points = List.of(HookPoint.residPre(0), HookPoint.residPre(1),
          HookPoint.of(HookPoint.Kind.ATTN_RESULT, 0));
      long cat = 21;
      long dog = 22;
      // log p(cat) - 0.5 log p(dog) at position 2
      PointGradients.Result r = engine.pointGradients(new PointGradients(e, points, new int[] {2, 2},
          new long[] {cat, dog}, new float[] {1f, -0.5f}));
      long before = engine.liveNativeArrays();
      for (int i = 0; i < points.size(); i++) {
        float[] gCat = engine.gradient(new GradientRequest(e, List.of(), new int[] {2}, new long[] {cat}, points.get(i)))
            .point().data();
        float[] gDog = engine.gradient(new GradientRequest(e, List.of(), new int[] {2}, new long[] {dog}, points.get(i)))
            .point().data();
        float[] got = r.gradients().get(i).data();
        double largest = 0;
        for (int k = 0; k < got.length; k++) {
          // the loss is -log p: its gradient is minus the log-probability's
          double want = -gCat[k] + 0.5 * gDog[k];
          assertThat((double) got[k]).as("%s [%d]", points.get(i), k).isCloseTo(want, within(1e-5));
          largest = Math.max(largest, Math.abs(want));
        }
        assertThat(largest).as("%s has a gradient", points.get(i)).isGreaterThan(1e-4);
      }
      assertThat(engine.liveNativeArrays()).isEqualTo(before);
    }
  }
}
