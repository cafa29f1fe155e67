package io.headscope.model.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every native array a call creates belongs to that call's scope and is freed with it: the number of
 * arrays owned by the model's long-lived manager is the same after many calls as before.
 */
class NativeMemoryOwnershipTest {
  @TempDir Path dir;

  @Test
  void noArraySurvivesACallWhateverTheMaskOrBatch() throws Exception {
    try (BertModel model = BertModel.load(TinyBert.create(2, 4, 3).writeTo(dir.resolve("m")))) {
      Encoding one = model.encode("the [MASK] sat on the mat.", null);
      Encoding two = model.encode("hello world", "the dog ran.");
      model.trace(one); // first call may create lazily cached engine state
      long before = model.liveNativeArrays();
      for (int i = 0; i < 200; i++) {
        model.trace(one);
        model.trace(TraceRequest.of(List.of(one, two))
            .mask(HeadMask.of(Set.of(new Head(0, i % 4)), HeadMask.Mode.UNIFORM)).top(3));
        model.trace(TraceRequest.of(two).mask(HeadMask.of(Set.of(new Head(1, 1)), HeadMask.Mode.ZERO)).top(3)).get(0);
      }
      assertThat(model.liveNativeArrays()).isEqualTo(before);
    }
  }

  @Test
  void noArraySurvivesCapturesPatchesPartialRunsOrGradients() throws Exception {
    try (BertModel model = BertModel.load(TinyBert.create(3, 4, 5).writeTo(dir.resolve("m")))) {
      Encoding e = model.encode("the [MASK] sat on the mat.", null);
      RunRequest everything = RunRequest.of(List.of(e, e))
          .capture(Capture.points(HookPoint.Kind.values()))
          .capture(Capture.derived(Capture.Derived.VALUE_NORMS, Capture.Derived.LAYER_NORM_MAP))
          .read(Readouts.none().withMaskedLm(model.tokenizer().maskId()).withLogProbs(new int[] {2}));
      RunResult first = model.run(everything);
      Activation stream = first.cache().get(HookPoint.residPre(1));
      long before = model.liveNativeArrays();
      for (int i = 0; i < 50; i++) {
        model.run(everything);
        model.run(RunRequest.of(List.of(e, e)).startingAt(1, stream)
            .intervene(new Intervention.Patch(HookPoint.of(HookPoint.Kind.ATTN_Z, 2),
                first.cache().get(HookPoint.of(HookPoint.Kind.ATTN_Z, 2))))
            .intervene(new Intervention.Edit(HookPoint.residPost(1), a -> a))
            .read(Readouts.none().withComparison(new Readouts.Comparison(new int[] {2}, new long[] {7},
                first.logProbs()[0]))));
        model.run(RunRequest.of(e).stoppingBefore(2).capture(Capture.points(HookPoint.Kind.RESID_POST)));
        model.gradient(GradientRequest.headMask(e, new int[] {2}, null));
        model.gradient(new GradientRequest(e, List.of(), new int[] {2}, new long[] {9}, HookPoint.residPre(2)));
      }
      assertThat(model.liveNativeArrays()).isEqualTo(before);
    }
  }
}
