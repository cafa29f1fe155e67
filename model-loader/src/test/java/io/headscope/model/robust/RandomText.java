package io.headscope.model.robust;

import java.util.Random;

/** Random strings that stress a tokenizer: every plane, combining marks, RTL, controls, broken surrogates. */
final class RandomText {
  private RandomText() {}

  static String next(Random r) {
    StringBuilder sb = new StringBuilder();
    int parts = 1 + r.nextInt(12);
    for (int p = 0; p < parts; p++) {
      switch (r.nextInt(11)) {
        case 0 -> sb.appendCodePoint(r.nextInt(0x110000)); // any code point, any plane
        case 1 -> sb.append((char) (0xD800 + r.nextInt(0x800))); // a lone surrogate half
        case 2 -> sb.appendCodePoint(0x0300 + r.nextInt(0x70)); // combining marks
        case 3 -> sb.appendCodePoint(0x0590 + r.nextInt(0x200)); // Hebrew and Arabic (RTL)
        case 4 -> sb.appendCodePoint(r.nextInt(0x20)).appendCodePoint(0x7F + r.nextInt(0x21)); // controls
        case 5 -> sb.appendCodePoint(0x1F300 + r.nextInt(0x300)); // emoji
        case 6 -> sb.appendCodePoint(0x4E00 + r.nextInt(0x5200)); // CJK
        case 7 -> sb.append("a".repeat(1 + r.nextInt(300))); // a very long word
        case 8 -> sb.append(r.nextBoolean() ? "[MASK]" : r.nextBoolean() ? "[SEP]" : "[CLS]");
        case 9 -> sb.append(' ').append(r.nextBoolean() ? "the cat" : "\u200d\u200c\u2028\ufeff");
        default -> sb.appendCodePoint(0x20 + r.nextInt(0x60)); // plain ASCII
      }
    }
    return sb.toString();
  }

  /** The string with everything outside printable ASCII as \\uXXXX, for failure messages. */
  static String escape(String s) {
    StringBuilder sb = new StringBuilder();
    for (char c : s.toCharArray()) {
      sb.append(c >= 0x20 && c < 0x7F ? String.valueOf(c) : String.format("\\u%04x", (int) c));
    }
    return sb.toString();
  }
}
