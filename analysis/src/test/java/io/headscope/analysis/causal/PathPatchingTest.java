package io.headscope.analysis.causal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.Intervention;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.engine.RunResult;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.testing.families.FamilyModelFolders;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Path patching against the two steps done by hand with plain runs: step (a) as one whole run of the
 * base input with every layer's {@code attn.hook_z} (the heads' {@code z = A v}, before W_O) replaced from
 * the layer of the sender up, the sender's from the source run and every other head's from the base run;
 * step (b) as a second whole run with the receivers' blocks of {@code attn.hook_q|k|v} replaced by (a)'s.
 * PathPatching freezes at other points ({@code attn.hook_result}, {@code hook_attn_out}) and starts its runs
 * from cached layer inputs, so the two agree only if both follow the definition. A three-layer random BERT.
 */
class PathPatchingTest {
  @TempDir static Path dir;
  static BertModel model;
  static PatchInputs pair;
  static TargetMetric metric;
  static final int LAYERS = 3;
  static final int HEADS = 4;

  /**
   * Both sides are float32 runs of the same equations in a different order (a sum of heads against its
   * parts): differences are roundings of the logits (|z| below about 10 here, eps 6e-8 per operation through
   * three layers), far under 1e-5.
   */
  static final double FLOAT32 = 1e-5;

  @BeforeAll
  static void load() {
    model = BertModel.load(TinyBert.create(LAYERS, HEADS, 31).writeTo(dir.resolve("tiny")));
    pair = PatchInputs.of(model, "the king said that [MASK] was in paris .", "the queen said that [MASK] was in paris .");
    metric = new TargetMetric(TargetMetric.Kind.LOGIT_DIFF, model.tokenizer().singleTokenId("she"),
        model.tokenizer().singleTokenId("he"));
  }

  @AfterAll
  static void close() {
    model.close();
  }

  @ParameterizedTest
  @EnumSource(PatchDirection.class)
  void intoTheLogitsEverySenderEqualsAWholeRunWithEveryHeadFrozenButIt(PatchDirection d) {
    PathPatchResult r = new PathPatching(model).run(pair, PatchMetric.of(metric), List.of(PathReceiver.LOGITS), d);
    assertThat(r.senderLayers()).isEqualTo(LAYERS);
    double moved = 0;
    for (int l = 0; l < LAYERS; l++) {
      for (int h = 0; h < HEADS; h++) {
        double want = metric(base(d), stepA(d, l, h).toArray(Intervention[]::new));
        assertThat(r.patched()[l][h]).as("%s sender %d-%d", d, l + 1, h + 1).isCloseTo(want, within(FLOAT32));
        moved = Math.max(moved, Math.abs(want - r.base()));
      }
    }
    assertThat(moved).as("some path changes the metric").isGreaterThan(1e-3);
    assertThat(r.clean()).isCloseTo(metric(pair.clean()), within(FLOAT32));
    assertThat(r.corrupted()).isCloseTo(metric(pair.corrupted()), within(FLOAT32));
    assertThat(r.recovered(1, 2)).isEqualTo((r.patched()[1][2] - r.corrupted()) / (r.clean() - r.corrupted()));
  }

  @ParameterizedTest
  @EnumSource(PatchDirection.class)
  void intoTheLogitsASenderInTheLastLayerIsActivationPatchingOfItsOutput(PatchDirection d) {
    PathPatchResult path = new PathPatching(model).run(pair, PatchMetric.of(metric), List.of(PathReceiver.LOGITS), d);
    PatchResult act = new ActivationPatching(model).run(pair, metric, PatchSite.HEAD, d);
    for (int h = 0; h < HEADS; h++) {
      assertThat(path.patched()[LAYERS - 1][h]).isCloseTo(act.patched()[LAYERS - 1][h], within(FLOAT32));
      assertThat(path.recovered(LAYERS - 1, h)).isCloseTo(act.recovered(LAYERS - 1, h), within(1e-4));
    }
  }

  @ParameterizedTest
  @EnumSource(PatchDirection.class)
  void intoHeadsInputsEverySenderEqualsTwoHandEditedRuns(PatchDirection d) {
    // two receivers in different layers and modes, patched together; senders: layer 1 only (before layer 2)
    List<PathReceiver> receivers = PathReceiver.parse("3-2:q,2-4:v,3-1:k", model.config());
    PathPatchResult r = new PathPatching(model).run(pair, PatchMetric.of(metric), receivers, d);
    assertThat(r.senderLayers()).isEqualTo(1);
    double moved = 0;
    for (int h = 0; h < HEADS; h++) {
      moved = Math.max(moved, Math.abs(checkSender(d, receivers, r, 0, h) - r.base()));
    }
    assertThat(moved).as("some path changes the metric").isGreaterThan(1e-4);
  }

  @Test
  void oneValueReceiverInTheLastLayerTakesEverySenderBeforeIt() {
    List<PathReceiver> receivers = PathReceiver.parse("3-3:v", model.config());
    PathPatchResult r = new PathPatching(model).run(pair, PatchMetric.of(metric), receivers, PatchDirection.NOISE);
    assertThat(r.senderLayers()).isEqualTo(2);
    for (int l = 0; l < 2; l++) {
      for (int h = 0; h < HEADS; h++) {
        checkSender(PatchDirection.NOISE, receivers, r, l, h);
      }
    }
  }

  @Test
  void aCausalModelsPathsAreTheHandEditedOnesToo() throws Exception {
    try (BertModel gpt = BertModel.load(FamilyModelFolders.write("gpt2", dir.resolve("gpt2"), 3))) {
      PatchInputs in = PatchInputs.of(gpt, "the cat sat on", "the dog sat on");
      long a = in.clean().ids()[0]; // any two tokens of the vocabulary do
      long b = in.clean().ids()[1];
      TargetMetric m = new TargetMetric(TargetMetric.Kind.LOGIT_DIFF, a, b);
      PathPatchResult r = new PathPatching(gpt).run(in, PatchMetric.of(m), List.of(PathReceiver.LOGITS),
          PatchDirection.DENOISE);
      int layers = gpt.config().numHiddenLayers();
      int heads = gpt.config().numAttentionHeads();
      for (int l = 0; l < layers; l++) {
        for (int h = 0; h < heads; h++) {
          List<Intervention> edits = frozen(gpt, in.corrupted(), in.clean(), l, h, layers - 1);
          float[] logp = gpt.run(with(RunRequest.of(in.corrupted()).read(Readouts.none().withLogProbs(in.positions())),
              edits)).logProbs()[0][0];
          assertThat(r.patched()[l][h]).isCloseTo(logp[(int) a] - logp[(int) b], within(FLOAT32));
        }
      }
    }
  }

  @Test
  void receiversAreReadOneBasedAndRefusedInOneLine() {
    assertThat(PathReceiver.parse("logits", model.config())).containsExactly(PathReceiver.LOGITS);
    assertThat(PathReceiver.parse("2-3:Q, 2-3:q,3-1:v", model.config())).containsExactly(
        new PathReceiver(1, 2, HookPoint.Kind.ATTN_Q), new PathReceiver(2, 0, HookPoint.Kind.ATTN_V));
    for (String bad : List.of("", "1-1:q", "4-1:q", "2-5:k", "2-1:z", "2-1", "logits,2-1:q", "x")) {
      assertThatThrownBy(() -> PathReceiver.parse(bad, model.config())).as(bad).isInstanceOf(HeadScopeException.class)
          .hasMessageStartingWith("--receivers").hasMessageNotContaining("\n");
    }
  }

  /** Checks one sender against the hand-made (a) and (b); returns the hand-made metric. */
  private static double checkSender(PatchDirection d, List<PathReceiver> receivers, PathPatchResult r, int l, int h) {
    List<Intervention> a = stepA(d, l, h);
    List<Intervention> b = new ArrayList<>();
    for (PathReceiver x : receivers) {
      HookPoint p = HookPoint.of(x.kind(), x.layer());
      Activation fromA = model.run(with(RunRequest.of(base(d)), a).capture(Capture.points(x.kind()))).cache().get(p);
      b.add(new Intervention.Edit(p, v -> withHead(v, fromA, x.head())));
    }
    double want = metric(base(d), b.toArray(Intervention[]::new));
    assertThat(r.patched()[l][h]).as("%s sender %d-%d into %s", d, l + 1, h + 1, receivers)
        .isCloseTo(want, within(FLOAT32));
    return want;
  }

  /** Step (a) as edits of {@code hook_z}: from layer l up, every head's z from the base run, head h of layer l's from the source. */
  private static List<Intervention> stepA(PatchDirection d, int l, int h) {
    return frozen(model, base(d), source(d), l, h, LAYERS - 1);
  }

  static List<Intervention> frozen(BertModel m, Encoding base, Encoding source, int l, int h, int top) {
    List<Intervention> out = new ArrayList<>();
    RunResult b = m.run(RunRequest.of(base).capture(Capture.points(HookPoint.Kind.ATTN_Z)));
    Activation src = m.run(RunRequest.of(source).capture(Capture.points(HookPoint.Kind.ATTN_Z))).cache()
        .get(HookPoint.of(HookPoint.Kind.ATTN_Z, l));
    for (int k = l; k <= top; k++) {
      HookPoint p = HookPoint.of(HookPoint.Kind.ATTN_Z, k);
      Activation frozen = k == l ? withHead(b.cache().get(p), src, h) : b.cache().get(p);
      out.add(new Intervention.Edit(p, v -> frozen));
    }
    return out;
  }

  static RunRequest with(RunRequest r, List<Intervention> edits) {
    for (Intervention i : edits) {
      r = r.intervene(i);
    }
    return r;
  }

  /** {@code into} (1, H, T, dh) with head {@code head}'s block taken from {@code from}. */
  static Activation withHead(Activation into, Activation from, int head) {
    float[] data = into.data().clone();
    int[] s = into.shape();
    for (int t = 0; t < s[2]; t++) {
      for (int e = 0; e < s[3]; e++) {
        int i = into.index(0, head, t, e);
        data[i] = from.data()[from.index(0, head, t, e)];
      }
    }
    return new Activation(data, s);
  }

  static Encoding base(PatchDirection d) {
    return d == PatchDirection.DENOISE ? pair.corrupted() : pair.clean();
  }

  static Encoding source(PatchDirection d) {
    return d == PatchDirection.DENOISE ? pair.clean() : pair.corrupted();
  }

  static double metric(Encoding e, Intervention... edits) {
    RunRequest r = RunRequest.of(e).read(Readouts.none().withLogProbs(pair.positions()));
    for (Intervention i : edits) {
      r = r.intervene(i);
    }
    float[] logp = model.run(r).logProbs()[0][0];
    return logp[(int) metric.target()] - logp[(int) metric.contrast()];
  }
}
