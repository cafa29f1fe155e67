package io.headscope.model.checkpoint;

import java.nio.charset.StandardCharsets;

/**
 * Protobuf's wire format over a byte range: keys, varints, fixed32/64 and length-delimited fields, nothing
 * more. ONNX needs no schema compiler for the few fields HeadScope reads, and a hand-written reader keeps
 * a 90 MB model from being copied into a generated object tree.
 *
 * <p>Every read is bounds-checked against the enclosing message, so a truncated or corrupt file fails
 * with {@link Malformed} (naming the byte offset) instead of reading past a field or looping.
 */
final class ProtoReader {
  static final int VARINT = 0;
  static final int FIXED64 = 1;
  static final int LENGTH_DELIMITED = 2;
  static final int FIXED32 = 5;

  /** The bytes do not follow the wire format; the message says where. */
  static final class Malformed extends RuntimeException {
    Malformed(String message) {
      super(message);
    }
  }

  private final byte[] buf;
  private final int end;
  private int pos;
  private int wireType = -1;

  ProtoReader(byte[] buf, int from, int to) {
    if (from < 0 || to > buf.length || from > to) {
      throw new Malformed("a message at byte " + from + " runs past the end of the file");
    }
    this.buf = buf;
    this.pos = from;
    this.end = to;
  }

  ProtoReader(byte[] buf) {
    this(buf, 0, buf.length);
  }

  boolean hasNext() {
    return pos < end;
  }

  /** Reads the next key and returns its field number; {@link #wireType()} tells how to read the value. */
  int nextField() {
    int at = pos;
    long key = varint();
    wireType = (int) (key & 7);
    long field = key >>> 3;
    if (field == 0 || field > Integer.MAX_VALUE || wireType == 3 || wireType == 4 || wireType > 5) {
      throw new Malformed("byte " + at + " is not a field key (field " + field + ", wire type " + wireType + ")");
    }
    return (int) field;
  }

  int wireType() {
    return wireType;
  }

  long varint() {
    long result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos >= end) {
        throw new Malformed("a number at byte " + pos + " runs past the end of its message");
      }
      byte b = buf[pos++];
      result |= (long) (b & 0x7f) << shift;
      if (b >= 0) {
        return result;
      }
    }
    throw new Malformed("a number at byte " + pos + " is longer than 10 bytes");
  }

  int fixed32() {
    need(4);
    int v = (buf[pos] & 0xff) | (buf[pos + 1] & 0xff) << 8 | (buf[pos + 2] & 0xff) << 16 | (buf[pos + 3] & 0xff) << 24;
    pos += 4;
    return v;
  }

  /** The byte range of a length-delimited value, as {@code [from, to)}; the reader moves past it. */
  int[] lengthDelimited() {
    long len = varint();
    if (len < 0 || len > end - pos) {
      throw new Malformed("a field of " + len + " bytes at byte " + pos + " runs past the end of its message ("
          + (end - pos) + " bytes left)");
    }
    int from = pos;
    pos += (int) len;
    return new int[] {from, pos};
  }

  ProtoReader message() {
    int[] r = lengthDelimited();
    return new ProtoReader(buf, r[0], r[1]);
  }

  String string() {
    int[] r = lengthDelimited();
    return new String(buf, r[0], r[1] - r[0], StandardCharsets.UTF_8);
  }

  byte[] buffer() {
    return buf;
  }

  /** Skips the value of the field just read. */
  void skip() {
    switch (wireType) {
      case VARINT -> varint();
      case FIXED64 -> {
        need(8);
        pos += 8;
      }
      case LENGTH_DELIMITED -> lengthDelimited();
      case FIXED32 -> {
        need(4);
        pos += 4;
      }
      default -> throw new Malformed("wire type " + wireType + " at byte " + pos);
    }
  }

  private void need(int n) {
    if (end - pos < n) {
      throw new Malformed("a " + n + "-byte value at byte " + pos + " runs past the end of its message");
    }
  }
}
