package io.headscope.analysis.export;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * NumPy's {@code .npz}: a ZIP of {@code .npy} files, stored (not compressed), as {@code np.savez} writes
 * it, so {@code np.load(f)} reads it with its default {@code allow_pickle=False}. Each {@code .npy} is
 * format version 1.0 (NumPy's {@code numpy.lib.format}): the magic {@code \x93NUMPY}, the version bytes
 * 1 and 0, a little-endian uint16 header length, then an ASCII Python dict literal
 * {@code {'descr': '<f4', 'fortran_order': False, 'shape': (12, 12, 7, 7), }} padded with spaces and ended
 * by a line break so that the data starts at a multiple of 64 bytes; then the data, C order, little-endian.
 * Only the three kinds HeadScope writes: float32 {@code <f4}, int32 {@code <i4}, and unicode {@code <Un}
 * (n code points per item, each UTF-32LE, short items padded with zeros).
 */
public final class Npz implements AutoCloseable {
  /** NumPy aligns the data of a .npy to this (numpy.lib.format.ARRAY_ALIGN). */
  static final int ALIGN = 64;
  private static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};

  private final ZipOutputStream zip;

  /** Writes into {@code out}; {@link #close} finishes the archive but leaves {@code out} open. */
  public Npz(OutputStream out) {
    this.zip = new ZipOutputStream(new OutputStream() {
      @Override
      public void write(int b) throws IOException {
        out.write(b);
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        out.write(b, off, len);
      }

      @Override
      public void flush() throws IOException {
        out.flush();
      }
    });
  }

  /** A float32 array of any rank: {@code float[]}, {@code float[][]}, ... (rectangular). */
  public Npz floats(String name, Object array) throws IOException {
    int[] shape = shape(array);
    ByteBuffer data = buffer(count(shape) * 4L);
    putFloats(data, array);
    if (data.hasRemaining()) {
      throw new IllegalArgumentException(name + " is not rectangular");
    }
    return entry(name, "<f4", shape, data.array());
  }

  /** A float32 array of any shape from its values in C order (the last index fastest). */
  public Npz floats(String name, float[] values, int[] shape) throws IOException {
    if (count(shape) != values.length) {
      throw new IllegalArgumentException(name + ": " + values.length + " values for shape " + java.util.Arrays.toString(shape));
    }
    ByteBuffer data = buffer(values.length * 4L);
    for (float v : values) {
      data.putFloat(v);
    }
    return entry(name, "<f4", shape.clone(), data.array());
  }

  /** An int32 array of any shape from its values in C order. */
  public Npz ints(String name, int[] values, int[] shape) throws IOException {
    if (count(shape) != values.length) {
      throw new IllegalArgumentException(name + ": " + values.length + " values for shape " + java.util.Arrays.toString(shape));
    }
    ByteBuffer data = buffer(values.length * 4L);
    for (int v : values) {
      data.putInt(v);
    }
    return entry(name, "<i4", shape.clone(), data.array());
  }

  /** An int32 vector. */
  public Npz ints(String name, int[] values) throws IOException {
    ByteBuffer data = buffer(values.length * 4L);
    for (int v : values) {
      data.putInt(v);
    }
    return entry(name, "<i4", new int[] {values.length}, data.array());
  }

  /** An int32 vector of values that fit (token ids). */
  public Npz ints(String name, long[] values) throws IOException {
    int[] narrow = new int[values.length];
    for (int i = 0; i < values.length; i++) {
      narrow[i] = Math.toIntExact(values[i]);
    }
    return ints(name, narrow);
  }

  /** A unicode vector {@code <Un}, n the longest item in code points (at least 1, as NumPy's {@code <U1} for ""). */
  public Npz strings(String name, List<String> values) throws IOException {
    return strings(name, values, new int[] {values.size()});
  }

  /** A unicode array of any shape from its items in C order. */
  public Npz strings(String name, List<String> values, int[] shape) throws IOException {
    if (count(shape) != values.size()) {
      throw new IllegalArgumentException(name + ": " + values.size() + " items for shape " + java.util.Arrays.toString(shape));
    }
    int n = 1;
    for (String s : values) {
      n = Math.max(n, s.codePointCount(0, s.length()));
    }
    ByteBuffer data = buffer((long) values.size() * n * 4);
    for (String s : values) {
      int[] cps = s.codePoints().toArray();
      for (int i = 0; i < n; i++) {
        data.putInt(i < cps.length ? cps[i] : 0);
      }
    }
    return entry(name, "<U" + n, shape.clone(), data.array());
  }

  @Override
  public void close() throws IOException {
    zip.finish();
    zip.flush();
  }

  /** The .npy bytes of one array: magic, version 1.0, header padded to {@link #ALIGN}, data. */
  static byte[] npy(String descr, int[] shape, byte[] data) {
    StringBuilder dims = new StringBuilder("(");
    for (int i = 0; i < shape.length; i++) {
      dims.append(i > 0 ? ", " : "").append(shape[i]);
    }
    dims.append(shape.length == 1 ? ",)" : ")");
    String dict = String.format(Locale.ROOT, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, dims);
    int unpadded = MAGIC.length + 2 + dict.length() + 1;
    int padding = (ALIGN - unpadded % ALIGN) % ALIGN;
    String header = dict + " ".repeat(padding) + "\n";
    if (header.length() > 0xFFFF) {
      throw new IllegalArgumentException("a .npy 1.0 header holds at most 65535 bytes: " + header.length());
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(MAGIC.length + 2 + header.length() + data.length);
    out.writeBytes(MAGIC);
    out.write(header.length() & 0xFF);
    out.write(header.length() >>> 8);
    out.writeBytes(header.getBytes(StandardCharsets.US_ASCII));
    out.writeBytes(data);
    return out.toByteArray();
  }

  private Npz entry(String name, String descr, int[] shape, byte[] data) throws IOException {
    byte[] bytes = npy(descr, shape, data);
    CRC32 crc = new CRC32();
    crc.update(bytes);
    ZipEntry e = new ZipEntry(name + ".npy");
    e.setMethod(ZipEntry.STORED); // as np.savez; a stored entry states its size and CRC up front
    e.setSize(bytes.length);
    e.setCompressedSize(bytes.length);
    e.setCrc(crc.getValue());
    e.setTime(315532800000L); // 1980-01-01, the ZIP epoch: the same input gives the same bytes
    zip.putNextEntry(e);
    zip.write(bytes);
    zip.closeEntry();
    return this;
  }

  private static ByteBuffer buffer(long bytes) {
    if (bytes > Integer.MAX_VALUE - 1024) {
      throw new IllegalArgumentException("an array of " + bytes + " bytes is too large for one .npy entry");
    }
    return ByteBuffer.allocate((int) bytes).order(ByteOrder.LITTLE_ENDIAN);
  }

  private static int[] shape(Object a) {
    java.util.List<Integer> dims = new java.util.ArrayList<>();
    Object level = a;
    while (level instanceof Object[] rows) {
      dims.add(rows.length);
      if (rows.length == 0) {
        break;
      }
      level = rows[0];
    }
    if (level instanceof float[] row) {
      dims.add(row.length);
    } else if (!(level instanceof Object[])) {
      throw new IllegalArgumentException("not a float array: " + a);
    }
    return dims.stream().mapToInt(Integer::intValue).toArray();
  }

  private static long count(int[] shape) {
    long n = 1;
    for (int d : shape) {
      n *= d;
    }
    return n;
  }

  private static void putFloats(ByteBuffer data, Object a) {
    if (a instanceof float[] row) {
      for (float v : row) {
        data.putFloat(v);
      }
      return;
    }
    for (Object inner : (Object[]) a) {
      putFloats(data, inner);
    }
  }
}
