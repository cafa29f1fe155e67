package io.headscope.model.robust;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.checkpoint.FloatWidening;
import io.headscope.model.checkpoint.Safetensors;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.testing.RawSafetensors;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Path;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Checkpoints saved in float16 or bfloat16 (as many on the Hub are) load, and give the maps of the
 * float32 model whose weights are those same rounded values. Before, a bfloat16 checkpoint aborted
 * the JVM inside the native engine (exit 134).
 */
class HalfPrecisionCheckpointTest {
  @TempDir Path tmp;

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"F16", "BF16"})
  void sixteenBitCheckpointGivesTheMapsOfItsRoundedFloat32Twin(String dtype) {
    UnaryOperator<Float> round = dtype.equals("F16") ? RawSafetensors::roundedToF16 : RawSafetensors::roundedToBf16;
    Function<Float, Short> encode = dtype.equals("F16") ? RawSafetensors::toF16 : RawSafetensors::toBf16;

    ModelFiles rounded32 = TinyBert.create(2, 4, 31).writeTo(tmp.resolve("f32-rounded"));
    RawSafetensors.rewriteF32(rounded32.weights(), round);
    ModelFiles sixteen = TinyBert.create(2, 4, 31).writeTo(tmp.resolve(dtype));
    RawSafetensors.rewriteAs16Bit(sixteen.weights(), dtype, encode);
    try (Safetensors st = Safetensors.open(sixteen.weights())) {
      assertThat(st.tensors().values()).allMatch(t -> t.dtype().equals(dtype));
    }

    try (BertModel expected = BertModel.load(rounded32); BertModel actual = BertModel.load(sixteen)) {
      String text = "the [MASK] sat on the mat";
      AttentionTrace e = expected.trace(expected.encode(text, "a dog ran"));
      AttentionTrace a = actual.trace(actual.encode(text, "a dog ran"));
      float[][][][] em = e.attention();
      float[][][][] am = a.attention();
      assertThat(am.length).isEqualTo(em.length);
      for (int l = 0; l < em.length; l++) {
        for (int h = 0; h < em[l].length; h++) {
          for (int i = 0; i < em[l][h].length; i++) {
            assertThat(am[l][h][i]).as("layer %d head %d row %d", l, h, i)
                .containsExactly(em[l][h][i], Offset.offset(1e-6f));
          }
        }
      }
      assertThat(a.predictions().get(0).probabilities())
          .containsExactly(e.predictions().get(0).probabilities(), Offset.offset(1e-6f));
      Maps.assertRowsAreDistributions(a, 1e-5);
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"F16", "BF16"})
  void sixteenBitCheckpointLoadsInAFreshJvmInsteadOfAbortingIt(String dtype) throws Exception {
    // As a user meets it: a new JVM loads the checkpoint and draws a map (bf16 used to end it with exit 134).
    ModelFiles m = TinyBert.create(2, 4, 32).writeTo(tmp.resolve("child-" + dtype));
    RawSafetensors.rewriteAs16Bit(m.weights(), dtype, dtype.equals("F16") ? RawSafetensors::toF16 : RawSafetensors::toBf16);
    String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    Process p = new ProcessBuilder(javaBin, "-Xmx512m", "-cp", cp, HalfPrecisionCheckpointTest.class.getName(),
        m.config().toString(), m.weights().toString(), m.tokenizer().toString()).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(p.waitFor(2, java.util.concurrent.TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue()).as(output).isZero();
    assertThat(output).contains("maps 2 x 4, rows sum to 1");
  }

  /** The child of {@link #sixteenBitCheckpointLoadsInAFreshJvmInsteadOfAbortingIt}: config, weights, tokenizer. */
  public static void main(String[] args) {
    ModelFiles files = new ModelFiles("child", Path.of(args[0]), Path.of(args[1]), Path.of(args[2]));
    try (BertModel m = BertModel.load(files)) {
      AttentionTrace t = m.trace(m.encode("the cat sat on the mat", null));
      Maps.assertRowsAreDistributions(t, 1e-5);
      System.out.println("maps " + t.layers() + " x " + t.heads() + ", rows sum to 1");
    }
  }

  @Test
  void float16SpecialValuesWidenExactly() {
    // Values from the IEEE 754 binary16 tables.
    assertThat(FloatWidening.f16ToFloat((short) 0x3C00)).isEqualTo(1.0f);
    assertThat(FloatWidening.f16ToFloat((short) 0xC000)).isEqualTo(-2.0f);
    assertThat(FloatWidening.f16ToFloat((short) 0x7BFF)).isEqualTo(65504.0f);
    assertThat(FloatWidening.f16ToFloat((short) 0x0400)).isEqualTo((float) Math.pow(2, -14)); // smallest normal
    assertThat(FloatWidening.f16ToFloat((short) 0x0001)).isEqualTo((float) Math.pow(2, -24)); // smallest subnormal
    assertThat(FloatWidening.f16ToFloat((short) 0x03FF)).isEqualTo((float) (1023 * Math.pow(2, -24)));
    assertThat(FloatWidening.f16ToFloat((short) 0x3555)).isEqualTo((float) (0x155 / 1024.0 + 1) / 4); // ~1/3
    assertThat(Float.floatToRawIntBits(FloatWidening.f16ToFloat((short) 0x8000))).isEqualTo(0x8000_0000); // -0
    assertThat(FloatWidening.f16ToFloat((short) 0x7C00)).isEqualTo(Float.POSITIVE_INFINITY);
    assertThat(FloatWidening.f16ToFloat((short) 0xFC00)).isEqualTo(Float.NEGATIVE_INFINITY);
    assertThat(FloatWidening.f16ToFloat((short) 0x7E00)).isNaN();
    assertThat(FloatWidening.f16ToFloat((short) 0x7C01)).isNaN();
  }

  @Test
  void bfloat16SpecialValuesWidenExactly() {
    assertThat(FloatWidening.bf16ToFloat((short) 0x3F80)).isEqualTo(1.0f);
    assertThat(FloatWidening.bf16ToFloat((short) 0xC040)).isEqualTo(-3.0f);
    assertThat(FloatWidening.bf16ToFloat((short) 0x0001)).isEqualTo((float) Math.pow(2, -133)); // subnormal
    assertThat(FloatWidening.bf16ToFloat((short) 0x7F80)).isEqualTo(Float.POSITIVE_INFINITY);
    assertThat(FloatWidening.bf16ToFloat((short) 0x7FC0)).isNaN();
  }

  @Test
  void everyFloat16BitPatternRoundTripsThroughTheTestEncoder() {
    // The test's encoder (from values) and the loader's decoder (from bits) are written independently;
    // they agree on all 63488 finite patterns.
    for (int bits = 0; bits < 0x10000; bits++) {
      if ((bits & 0x7C00) == 0x7C00) {
        continue; // infinities and NaNs
      }
      float f = FloatWidening.f16ToFloat((short) bits);
      assertThat(RawSafetensors.toF16(f) & 0xFFFF).as("0x%04x", bits).isEqualTo(bits);
      assertThat(RawSafetensors.roundedToF16(f)).isEqualTo(f);
    }
  }
}
