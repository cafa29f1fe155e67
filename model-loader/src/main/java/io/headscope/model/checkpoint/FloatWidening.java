package io.headscope.model.checkpoint;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.ShortBuffer;

/**
 * Widens safetensors' 16-bit floats to float32 in Java, and finds non-finite values.
 *
 * <p>Done here rather than by the native engine: creating a bfloat16 array from a buffer aborts the
 * JVM in DJL 0.35's PyTorch engine, and float16 goes through the same path. Both conversions are exact
 * (every float16 and bfloat16 value is a float32 value).
 */
public final class FloatWidening {
  private FloatWidening() {}

  /** bfloat16 is the upper half of a float32: shift it back into place. */
  public static float bf16ToFloat(short bits) {
    return Float.intBitsToFloat((bits & 0xFFFF) << 16);
  }

  /** IEEE 754 binary16 to float32, with subnormals, infinities and NaN (payload kept). */
  public static float f16ToFloat(short bits) {
    int h = bits & 0xFFFF;
    int sign = (h & 0x8000) << 16;
    int exp = (h >>> 10) & 0x1F;
    int mant = h & 0x3FF;
    if (exp == 0x1F) { // infinity or NaN
      return Float.intBitsToFloat(sign | 0x7F80_0000 | (mant << 13));
    }
    if (exp == 0) {
      if (mant == 0) {
        return Float.intBitsToFloat(sign); // signed zero
      }
      // subnormal: mant * 2^-24, exact in float32
      float v = mant * 0x1p-24f;
      return sign != 0 ? -v : v;
    }
    return Float.intBitsToFloat(sign | ((exp - 15 + 127) << 23) | (mant << 13));
  }

  /**
   * The tensor's values as float32, in a new direct buffer in native order.
   *
   * @param raw little-endian bytes of an F32, F16 or BF16 tensor
   */
  public static ByteBuffer toFloat32(ByteBuffer raw, String dtype, long elements) {
    if (elements > Integer.MAX_VALUE / Float.BYTES) {
      throw new IllegalArgumentException("tensor too large to widen: " + elements + " elements");
    }
    ByteBuffer out = ByteBuffer.allocateDirect((int) elements * Float.BYTES).order(ByteOrder.nativeOrder());
    FloatBuffer f = out.asFloatBuffer();
    ByteBuffer src = raw.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    switch (dtype) {
      case "F32" -> f.put(src.asFloatBuffer());
      case "F16" -> {
        ShortBuffer s = src.asShortBuffer();
        while (s.hasRemaining()) {
          f.put(f16ToFloat(s.get()));
        }
      }
      case "BF16" -> {
        ShortBuffer s = src.asShortBuffer();
        while (s.hasRemaining()) {
          f.put(bf16ToFloat(s.get()));
        }
      }
      default -> throw new IllegalArgumentException("not a float dtype: " + dtype);
    }
    return out;
  }

  /** The index of the first NaN or infinity in a float32 buffer (native order), or -1. */
  public static long firstNonFinite(ByteBuffer float32) {
    FloatBuffer f = float32.duplicate().order(float32.order()).asFloatBuffer();
    for (int i = 0, n = f.limit(); i < n; i++) {
      if (!Float.isFinite(f.get(i))) {
        return i;
      }
    }
    return -1;
  }
}
