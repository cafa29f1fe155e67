package io.headscope.analysis.hooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.BertModel;
import io.headscope.model.core.HeadMask;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.Intervention;
import io.headscope.model.engine.PointEdit;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.engine.RunResult;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.testing.families.FamilyModelFolders;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link HookRun}: TransformerLens's names and shapes on a tiny BERT, and every declarative edit checked against
 * the same edit made by hand on a plain run's residual stream and fed to the layers above it
 * ({@link RunRequest#startingAt}): an independent path through the engine that shares no edit code.
 */
class HookRunTest {
  @TempDir static Path dir;
  static BertModel model;
  static final int LAYERS = 3;
  static final String A = "the cat sat on the [MASK] .";
  static final String B = "a dog ran in the [MASK] !";

  @BeforeAll
  static void load() {
    ModelFiles files = TinyBert.create(LAYERS, 2, 7).writeTo(dir.resolve("bert"));
    model = BertModel.load(files);
  }

  @AfterAll
  static void close() {
    model.close();
  }

  @Test
  void namesAreTransformerLensesWithWildcards() {
    List<HookRun.Name> patterns = HookRun.resolve("blocks.*.attn.hook_pattern", model.config());
    assertThat(patterns).extracting(HookRun.Name::name)
        .containsExactly("blocks.0.attn.hook_pattern", "blocks.1.attn.hook_pattern", "blocks.2.attn.hook_pattern");
    assertThat(HookRun.resolve("blocks.1.attn.hook_attn_scores", model.config()).get(0).point())
        .isEqualTo(HookPoint.of(HookPoint.Kind.ATTN_SCORES, 1));
    assertThat(HookRun.resolve("blocks.1.attn.hook_scores", model.config())).hasSize(1); // the engine's own name
    assertThat(HookRun.resolve("*resid_post", model.config())).hasSize(LAYERS);
    assertThat(HookRun.resolve("hook_final", model.config())).hasSize(1);
    assertThatThrownBy(() -> HookRun.resolve("blocks.3.attn.hook_z", model.config()))
        .isInstanceOf(HeadScopeException.class).hasMessageContaining("blocks.{0..2}");
  }

  @Test
  void zIsBatchPositionHeadDheadAndIsThePatternTimesTheValues() {
    Encoding in = model.encode(A, null);
    HookRun.Result r = HookRun.run(model, List.of(in), List.of("blocks.1.attn.hook_z", "blocks.1.attn.hook_v",
        "blocks.1.attn.hook_pattern"), List.of(), false);
    Activation z = r.cache().get("blocks.1.attn.hook_z");
    Activation v = r.cache().get("blocks.1.attn.hook_v");
    Activation p = r.cache().get("blocks.1.attn.hook_pattern");
    int t = in.length();
    int h = model.config().numAttentionHeads();
    int dh = model.config().headSize();
    assertThat(z.shape()).containsExactly(1, t, h, dh);
    assertThat(v.shape()).containsExactly(1, t, h, dh);
    assertThat(p.shape()).containsExactly(1, h, t, t);
    for (int head = 0; head < h; head++) {
      for (int i = 0; i < t; i++) {
        for (int d = 0; d < dh; d++) {
          double sum = 0;
          double abs = 0;
          for (int j = 0; j < t; j++) {
            double term = (double) p.get(0, head, i, j) * v.get(0, j, head, d);
            sum += term;
            abs += Math.abs(term);
          }
          // float32 sum of t products: at most t eps sum|terms| apart (eps = 2^-24, doubled for the products)
          assertThat((double) z.get(0, i, head, d)).isCloseTo(sum, org.assertj.core.data.Offset.offset(
              2 * t * 0x1p-24 * abs + 1e-12));
        }
      }
    }
  }

  @Test
  void zeroingAHeadsZIsSwitchingTheHeadOff() {
    Encoding in = model.encode(A, null);
    HookRun.Result edited = HookRun.run(model, List.of(in), List.of(), List.of(
        new HookRun.Edit("blocks.2.attn.hook_z", PointEdit.Op.ZERO, null, new int[] {1}, null, 0, null, null)), true);
    int[] all = positions(in.length());
    RunResult off = model.run(RunRequest.of(in).read(Readouts.none().withLogProbs(all))
        .intervene(new Intervention.HeadMasks(new float[][][] {HeadMask.of(java.util.Set.of(
            new io.headscope.model.core.Head(2, 1)), HeadMask.Mode.ZERO).multipliers(LAYERS, 2)}, HeadMask.Mode.ZERO)));
    float[] a = edited.logProbs().data();
    float[][] b = off.logProbs()[0];
    int vocab = b[0].length;
    for (int i = 0; i < in.length(); i++) {
      for (int w = 0; w < vocab; w++) {
        // zero times v is 0 exactly, so both runs compute the same numbers
        assertThat(a[i * vocab + w]).isCloseTo(b[i][w], org.assertj.core.data.Offset.offset(1e-6f));
      }
    }
  }

  @Test
  void everyEditIsTheSameEditByHandOnThePlainRunsStream() {
    Encoding a = model.encode(A, null);
    Encoding b = model.encode(B, null);
    assertThat(a.length()).isEqualTo(b.length());
    List<Encoding> batch = List.of(a, b);
    int t = a.length();
    int d = model.config().hiddenSize();
    Activation plain = model.run(RunRequest.of(batch).capture(Capture.points(HookPoint.Kind.RESID_PRE).atLayers(2)))
        .cache().get(HookPoint.residPre(2));
    Activation fromB = model.run(RunRequest.of(b).capture(Capture.points(HookPoint.Kind.RESID_PRE).atLayers(2)))
        .cache().get(HookPoint.residPre(2));
    int[] rows = {1};
    int[] pos = {2, 4};
    for (PointEdit.Op op : PointEdit.Op.values()) {
      float value = op == PointEdit.Op.SCALE ? -1.5f : op == PointEdit.Op.SET ? 0.25f : 3f;
      HookRun.Edit e = new HookRun.Edit("blocks.2.hook_resid_pre", op, op == PointEdit.Op.MEAN ? null : rows, null,
          pos, value, op == PointEdit.Op.PATCH ? B : null, null);
      HookRun.Result hooked = HookRun.run(model, batch, List.of(), List.of(e), true);
      // by hand: the plain run's stream, edited in Java, then the layers from 2 up
      float[] x = plain.data().clone();
      for (int r = 0; r < 2; r++) {
        if (op != PointEdit.Op.MEAN && r != 1) {
          continue;
        }
        for (int p : pos) {
          for (int k = 0; k < d; k++) {
            int at = (r * t + p) * d + k;
            float old = plain.data()[at];
            x[at] = switch (op) {
              case ZERO -> 0f;
              case SCALE -> old * value;
              case SET -> value;
              case ADD -> old + value;
              case MEAN -> (plain.data()[p * d + k] + plain.data()[(t + p) * d + k]) / 2;
              case PATCH -> fromB.data()[p * d + k];
            };
          }
        }
      }
      RunResult hand = model.run(RunRequest.of(batch).startingAt(2, new Activation(x, plain.shape()))
          .read(Readouts.none().withLogProbs(positions(t))));
      int vocab = hand.logProbs()[0][0].length;
      double worst = 0;
      for (int r = 0; r < 2; r++) {
        for (int i = 0; i < t; i++) {
          for (int w = 0; w < vocab; w++) {
            worst = Math.max(worst, Math.abs(hooked.logProbs().data()[(r * t + i) * vocab + w] - hand.logProbs()[r][i][w]));
          }
        }
      }
      // the same float32 operations on the same numbers, but the mean is (a + b) / 2 in Java and mean() in
      // the engine: a rounding or two of the stream, through one layer and the head
      assertThat(worst).as(op.toString()).isLessThan(op == PointEdit.Op.MEAN ? 1e-4 : 1e-6);
      if (op == PointEdit.Op.ZERO) {
        // input 0 untouched: the plain run's numbers bit for bit
        RunResult intact = model.run(RunRequest.of(batch).read(Readouts.none().withLogProbs(positions(t))));
        for (int i = 0; i < t; i++) {
          for (int w = 0; w < vocab; w++) {
            assertThat(hooked.logProbs().data()[i * vocab + w]).isEqualTo(intact.logProbs()[0][i][w]);
          }
        }
      }
    }
  }

  @Test
  void aPatternEditAtOneQueryZeroesOnlyThatRowsOutput() {
    Encoding in = model.encode(A, null);
    HookRun.Result r = HookRun.run(model, List.of(in), List.of("blocks.0.attn.hook_z", "blocks.0.attn.hook_pattern"),
        List.of(new HookRun.Edit("blocks.0.attn.hook_pattern", PointEdit.Op.ZERO, null, new int[] {0},
            new int[] {3}, 0, null, null)), false);
    Activation z = r.cache().get("blocks.0.attn.hook_z");
    Activation p = r.cache().get("blocks.0.attn.hook_pattern");
    int dh = model.config().headSize();
    for (int i = 0; i < in.length(); i++) {
      double rowSum = 0;
      for (int j = 0; j < in.length(); j++) {
        rowSum += p.get(0, 0, i, j);
      }
      double norm = 0;
      for (int k = 0; k < dh; k++) {
        norm += Math.abs(z.get(0, i, 0, k));
      }
      assertThat(rowSum).as("row %d", i).isCloseTo(i == 3 ? 0 : 1, org.assertj.core.data.Offset.offset(1e-5));
      assertThat(norm == 0).as("z row %d", i).isEqualTo(i == 3);
    }
  }

  @Test
  void gpt2NamesItsFinalNormAsTransformerLensDoes(@TempDir Path gpt) {
    ModelFiles files = FamilyModelFolders.write("gpt2", gpt, 11);
    try (BertModel g = BertModel.load(files)) {
      HookRun.Result r = HookRun.run(g, List.of(g.encode("the cat sat", null)), List.of("ln_final.hook_normalized"),
          List.of(), true);
      assertThat(r.cache()).containsKey("ln_final.hook_normalized");
      assertThat(r.logProbs().shape()[1]).isEqualTo(r.width());
    }
  }

  @Test
  void wrongEditsAreOneMessage() {
    Encoding in = model.encode(A, null);
    assertThatThrownBy(() -> HookRun.run(model, List.of(in), List.of(), List.of(
        new HookRun.Edit("blocks.0.hook_resid_pre", PointEdit.Op.ZERO, null, new int[] {0}, null, 0, null, null)), false))
        .isInstanceOf(HeadScopeException.class).hasMessageContaining("no head axis");
    assertThatThrownBy(() -> HookRun.run(model, List.of(in), List.of(), List.of(
        new HookRun.Edit("blocks.0.attn.hook_z", PointEdit.Op.ZERO, null, new int[] {5}, null, 0, null, null)), false))
        .hasMessageContaining("head 5");
    assertThatThrownBy(() -> HookRun.run(model, List.of(in), List.of(), List.of(
        new HookRun.Edit("blocks.0.hook_resid_pre", PointEdit.Op.PATCH, null, null, null, 0, "a much longer input than that one is", null)), false))
        .hasMessageContaining("same number of tokens");
  }

  private static int[] positions(int n) {
    int[] p = new int[n];
    java.util.Arrays.setAll(p, i -> i);
    return p;
  }
}
