package io.headscope.analysis.numeric;

import java.math.BigInteger;

/**
 * A sum of doubles kept exactly, whatever the order of the terms (a fixed-point "superaccumulator"
 * wide enough for every finite double). Corpus statistics are sums over inputs; with floating-point
 * addition the last bits of a mean depend on the order the inputs were added in, so a corpus split into
 * shards and merged would not give the bytes one run gives. Summed exactly and rounded once at the end,
 * the mean is the same for any split and any order: it is the exact sum, correctly rounded.
 *
 * <p>Cost: a few integer additions per term (no allocation); 68 longs per sum. Not thread-safe.
 */
public final class ExactSum {
  /** The value is {@code sum_i limbs[i] * 2^(32 i - BIAS)}: 2^-1074 is the smallest double. */
  private static final int BIAS = 1074;
  /** Bits 0..2098 hold any double; 64 more leave room for 2^31 terms and more. */
  private static final int LIMBS = 68;
  /** Each term adds under 2^33 to a limb; carrying this often keeps every limb far from overflow. */
  private static final int CARRY_EVERY = 1 << 28;

  private final long[] limbs = new long[LIMBS];
  private int sinceCarry;
  /** NaN and infinities are not summed exactly: they win, as in ordinary addition. */
  private double special;

  public void add(double x) {
    if (x == 0) {
      return;
    }
    if (!Double.isFinite(x)) {
      special += x;
      return;
    }
    long bits = Double.doubleToRawLongBits(x);
    int exponent = (int) ((bits >>> 52) & 0x7FF);
    long mantissa = bits & 0xF_FFFF_FFFF_FFFFL;
    if (exponent == 0) {
      exponent = 1; // subnormal: mantissa * 2^-1074
    } else {
      mantissa |= 1L << 52;
    }
    int shift = exponent - 1; // x = mantissa * 2^(shift - BIAS)
    int limb = shift >>> 5;
    int bit = shift & 31;
    long low = (mantissa & 0xFFFF_FFFFL) << bit; // < 2^63
    long high = (mantissa >>> 32) << bit; // < 2^52
    long p0 = low & 0xFFFF_FFFFL;
    long p1 = (low >>> 32) + (high & 0xFFFF_FFFFL);
    long p2 = high >>> 32;
    if (bits < 0) {
      limbs[limb] -= p0;
      limbs[limb + 1] -= p1;
      limbs[limb + 2] -= p2;
    } else {
      limbs[limb] += p0;
      limbs[limb + 1] += p1;
      limbs[limb + 2] += p2;
    }
    if (++sinceCarry == CARRY_EVERY) {
      carry();
    }
  }

  /** Adds another sum (a shard's) exactly. */
  public void add(ExactSum other) {
    other.carry();
    carry();
    for (int i = 0; i < LIMBS; i++) {
      limbs[i] += other.limbs[i];
    }
    special += other.special;
    carry();
  }

  /** The exact sum rounded to the nearest double (ties to even). */
  public double value() {
    if (special != 0 || Double.isNaN(special)) {
      return special;
    }
    return toDouble(exact(), -BIAS);
  }

  /**
   * The exact value as text that {@link #parse} reads back exactly: {@code 0}, or a hexadecimal
   * integer and a power of two ({@code -1bp-3} is -27/8), or {@code NaN}/{@code Infinity}.
   */
  @Override
  public String toString() {
    if (special != 0 || Double.isNaN(special)) {
      return Double.toString(special);
    }
    BigInteger m = exact();
    if (m.signum() == 0) {
      return "0";
    }
    int zeros = m.getLowestSetBit();
    return m.shiftRight(zeros).toString(16) + "p" + (zeros - BIAS);
  }

  /** Reads {@link #toString()}'s text. */
  public static ExactSum parse(String text) {
    ExactSum s = new ExactSum();
    if (text.equals("0")) {
      return s;
    }
    int p = text.indexOf('p');
    if (p < 0) {
      double d = Double.parseDouble(text);
      if (Double.isFinite(d)) {
        throw new NumberFormatException("not an exact sum: " + text);
      }
      s.special = d;
      return s;
    }
    BigInteger m = new BigInteger(text.substring(0, p), 16);
    int shift = Integer.parseInt(text.substring(p + 1)) + BIAS;
    if (shift < 0 || m.abs().bitLength() + shift > 32 * (LIMBS - 1)) {
      throw new NumberFormatException("exact sum out of range: " + text);
    }
    BigInteger a = m.abs().shiftLeft(shift);
    for (int i = 0; i < LIMBS; i++) {
      long chunk = a.shiftRight(32 * i).longValue() & 0xFFFF_FFFFL;
      s.limbs[i] = m.signum() < 0 ? -chunk : chunk;
    }
    s.carry();
    return s;
  }

  /** Moves every limb's overflow into the next, leaving limbs 0..n-2 in [0, 2^32). */
  private void carry() {
    for (int i = 0; i < LIMBS - 1; i++) {
      long c = limbs[i] >> 32; // floor division by 2^32, negative limbs included
      limbs[i] -= c << 32;
      limbs[i + 1] += c;
    }
    sinceCarry = 0;
  }

  /** The sum as an integer count of 2^-1074. */
  private BigInteger exact() {
    carry();
    BigInteger m = BigInteger.ZERO;
    for (int i = LIMBS - 1; i >= 0; i--) {
      m = m.shiftLeft(32).add(BigInteger.valueOf(limbs[i]));
    }
    return m;
  }

  /** {@code m * 2^exp} rounded once: 55 bits with a sticky bit, then the hardware's round to even. */
  static double toDouble(BigInteger m, int exp) {
    if (m.signum() == 0) {
      return 0.0;
    }
    BigInteger a = m.abs();
    int drop = Math.max(0, a.bitLength() - 55);
    long top = a.shiftRight(drop).longValueExact();
    if (drop > 0 && a.getLowestSetBit() < drop) {
      top |= 1; // bits below the 55 kept are not zero: a tie is not a tie
    }
    double d = Math.scalb((double) top, exp + drop);
    return m.signum() < 0 ? -d : d;
  }
}
