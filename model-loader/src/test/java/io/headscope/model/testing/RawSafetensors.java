package io.headscope.model.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.headscope.model.checkpoint.FloatTensor;
import io.headscope.model.checkpoint.Safetensors;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * A safetensors writer for tests, independent of the production one: any dtype, any shape (even one
 * that does not match the bytes), so tests can write the checkpoints other tools write (F16, BF16)
 * and the broken ones nobody should.
 */
public final class RawSafetensors {
  private RawSafetensors() {}

  /** One tensor as it goes into the file: the bytes are written as given. */
  public record Entry(String name, String dtype, long[] shape, byte[] data) {}

  public static void write(Path file, List<Entry> entries) {
    ObjectMapper json = new ObjectMapper();
    ObjectNode header = json.createObjectNode();
    header.putObject("__metadata__").put("format", "pt");
    long offset = 0;
    for (Entry e : entries) {
      ObjectNode info = header.putObject(e.name());
      info.put("dtype", e.dtype());
      var shape = info.putArray("shape");
      for (long s : e.shape()) {
        shape.add(s);
      }
      info.putArray("data_offsets").add(offset).add(offset + e.data().length);
      offset += e.data().length;
    }
    try (OutputStream out = Files.newOutputStream(file)) {
      byte[] h = header.toString().getBytes(StandardCharsets.UTF_8);
      out.write(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(h.length).array());
      out.write(h);
      for (Entry e : entries) {
        out.write(e.data());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every tensor of an F32 safetensors file, as entries (for rewriting with changes). */
  public static List<Entry> readF32(Path file) {
    List<Entry> out = new ArrayList<>();
    try (Safetensors st = Safetensors.open(file)) {
      for (String name : st.tensors().keySet()) {
        FloatTensor t = st.readFloat(name);
        ByteBuffer b = ByteBuffer.allocate(t.data().length * 4).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(t.data());
        out.add(new Entry(name, "F32", t.shape(), b.array()));
      }
    }
    return out;
  }

  /** Re-encodes every F32 tensor of {@code file} with {@code encode} (float to 16 bits) under {@code dtype}. */
  public static void rewriteAs16Bit(Path file, String dtype, Function<Float, Short> encode) {
    List<Entry> out = new ArrayList<>();
    for (Entry e : readF32(file)) {
      ByteBuffer in = ByteBuffer.wrap(e.data()).order(ByteOrder.LITTLE_ENDIAN);
      ByteBuffer b = ByteBuffer.allocate(e.data().length / 2).order(ByteOrder.LITTLE_ENDIAN);
      while (in.hasRemaining()) {
        b.putShort(encode.apply(in.getFloat()));
      }
      out.add(new Entry(e.name(), dtype, e.shape(), b.array()));
    }
    write(file, out);
  }

  /** float32 to bfloat16, round to nearest even (the upper 16 bits, rounded). */
  public static short toBf16(float f) {
    int bits = Float.floatToRawIntBits(f);
    int rounded = bits + 0x7FFF + ((bits >>> 16) & 1);
    return (short) (rounded >>> 16);
  }

  /**
   * float32 to IEEE binary16, round to nearest even, computed from the value (not by bit shuffling):
   * the value is rounded to 11 significant bits (fewer below 2^-14, the subnormals), then split
   * into exponent and mantissa.
   */
  public static short toF16(float f) {
    int sign = f < 0 || (f == 0 && 1 / f < 0) ? 0x8000 : 0;
    double a = Math.abs((double) f);
    if (Double.isNaN(f)) {
      return (short) 0x7E00;
    }
    int e = a == 0 ? -14 : Math.max(-14, Math.getExponent(a));
    double r = Math.rint(Math.scalb(a, 10 - e)) * Math.pow(2, e - 10); // rint: ties to even
    if (r >= 65520 || Double.isInfinite(a)) {
      return (short) (sign | 0x7C00);
    }
    if (r < 0x1p-14) {
      return (short) (sign | (int) Math.round(r * 0x1p24)); // subnormal: mantissa counts 2^-24
    }
    int exp = Math.getExponent(r);
    int mant = (int) Math.round((r / Math.pow(2, exp) - 1) * 1024);
    return (short) (sign | ((exp + 15) << 10) | mant);
  }

  /** The value float16 keeps of {@code f}: 11 significant bits (ties to even), fixed 2^-24 steps below 2^-14. */
  public static float roundedToF16(float f) {
    return roundTo(f, 10, -14);
  }

  /** The value bfloat16 keeps of {@code f}: 8 significant bits (ties to even). */
  public static float roundedToBf16(float f) {
    return roundTo(f, 7, -126);
  }

  private static float roundTo(float f, int fractionBits, int minExponent) {
    if (f == 0 || !Float.isFinite(f)) {
      return f;
    }
    int e = Math.max(minExponent, Math.getExponent(f));
    return (float) (Math.rint(Math.scalb((double) f, fractionBits - e)) * Math.pow(2, e - fractionBits));
  }

  /** Rewrites every F32 tensor of {@code file} with each value replaced by {@code change} (still F32). */
  public static void rewriteF32(Path file, java.util.function.UnaryOperator<Float> change) {
    List<Entry> out = new ArrayList<>();
    for (Entry e : readF32(file)) {
      ByteBuffer in = ByteBuffer.wrap(e.data()).order(ByteOrder.LITTLE_ENDIAN);
      ByteBuffer b = ByteBuffer.allocate(e.data().length).order(ByteOrder.LITTLE_ENDIAN);
      while (in.hasRemaining()) {
        b.putFloat(change.apply(in.getFloat()));
      }
      out.add(new Entry(e.name(), "F32", e.shape(), b.array()));
    }
    write(file, out);
  }
}
