package io.headscope.analysis.export;

import io.headscope.model.core.HeadScopeException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * Reads NumPy's {@code .npz} (what {@code np.savez} and {@code np.savez_compressed} write): a ZIP of
 * {@code .npy} files, format 1.0 to 3.0. Only plain arrays: floats ({@code f2}, {@code f4}, {@code f8}),
 * integers ({@code i1..i8}, {@code u1..u8}), booleans and unicode strings ({@code <Un}); an object array
 * (pickled Python objects) is refused, never unpickled. Sizes are checked against the header before
 * anything is allocated, so a crafted file cannot make it allocate more than its arrays' declared size,
 * itself capped at {@link #MAX_VALUES} values an array.
 */
public final class NpzReader {
  /** The most values one array may declare (2^28: a 1 GB float32 array). */
  public static final long MAX_VALUES = 1L << 28;

  /** The most arrays a file may hold. */
  static final int MAX_ARRAYS = 256;

  private static final Pattern DESCR = Pattern.compile("'descr'\\s*:\\s*'([^']*)'");
  private static final Pattern ORDER = Pattern.compile("'fortran_order'\\s*:\\s*(True|False)");
  private static final Pattern SHAPE = Pattern.compile("'shape'\\s*:\\s*\\(([^)]*)\\)");

  private NpzReader() {}

  /**
   * One array: its shape and its values, numbers widened to double (float32 values are exact in a
   * double), strings as Java strings.
   *
   * @param numbers the values in C order, or null for a string array
   * @param strings the values in C order, or null for a number array
   * @param floating whether the values were floating-point in the file
   */
  public record Array(int[] shape, double[] numbers, List<String> strings, boolean floating) {
    public long size() {
      long n = 1;
      for (int d : shape) {
        n *= d;
      }
      return n;
    }

    public boolean isText() {
      return strings != null;
    }

    /** The same array in C order, from values stored in Fortran order (the first index fastest) when asked. */
    Array withOrder(boolean fortran, String name) {
      if (!fortran || shape.length < 2) {
        return this;
      }
      int n = (int) size();
      int[] index = new int[shape.length];
      double[] num = numbers == null ? null : new double[n];
      List<String> str = strings == null ? null : new ArrayList<>(java.util.Collections.nCopies(n, ""));
      for (int c = 0; c < n; c++) {
        int f = 0;
        for (int a = shape.length - 1; a >= 0; a--) {
          f = f * shape[a] + index[a];
        }
        if (num != null) {
          num[c] = numbers[f];
        } else {
          str.set(c, strings.get(f));
        }
        for (int a = shape.length - 1; a >= 0 && ++index[a] == shape[a]; a--) {
          index[a] = 0;
        }
      }
      return new Array(shape, num, str, floating);
    }
  }

  /** Every array of the file, by its name (the ZIP entry without {@code .npy}), in the file's order. */
  public static Map<String, Array> read(InputStream in) throws IOException {
    Map<String, Array> out = new LinkedHashMap<>();
    try (ZipInputStream zip = new ZipInputStream(in, StandardCharsets.UTF_8)) {
      ZipEntry e;
      while ((e = zip.getNextEntry()) != null) {
        if (e.isDirectory()) {
          continue;
        }
        String name = e.getName();
        if (!name.endsWith(".npy")) {
          throw new HeadScopeException("The .npz holds \"" + name + "\", which is not a .npy array: write it with np.savez.");
        }
        if (out.size() >= MAX_ARRAYS) {
          throw new HeadScopeException("The .npz holds more than " + MAX_ARRAYS + " arrays.");
        }
        out.put(name.substring(0, name.length() - 4), npy(zip, name));
      }
    } catch (java.util.zip.ZipException e) {
      throw new HeadScopeException("The file is not a readable .npz (a ZIP of .npy arrays): " + e.getMessage() + ".");
    }
    if (out.isEmpty()) {
      throw new HeadScopeException("The file is not a .npz with arrays in it: write it with np.savez(FILE, tokens=..., attention=...).");
    }
    return out;
  }

  static Array npy(InputStream in, String name) throws IOException {
    byte[] magic = readFully(in, 8, name);
    if ((magic[0] & 0xFF) != 0x93 || magic[1] != 'N' || magic[2] != 'U' || magic[3] != 'M' || magic[4] != 'P'
        || magic[5] != 'Y') {
      throw new HeadScopeException(name + " in the .npz is not a .npy array (no \\x93NUMPY magic).");
    }
    int major = magic[6];
    int headerLength;
    if (major == 1) {
      byte[] l = readFully(in, 2, name);
      headerLength = (l[0] & 0xFF) | (l[1] & 0xFF) << 8;
    } else if (major == 2 || major == 3) {
      byte[] l = readFully(in, 4, name);
      long len = ByteBuffer.wrap(l).order(ByteOrder.LITTLE_ENDIAN).getInt() & 0xFFFFFFFFL;
      if (len > 1 << 20) {
        throw new HeadScopeException(name + " has a .npy header of " + len + " bytes.");
      }
      headerLength = (int) len;
    } else {
      throw new HeadScopeException(name + " is a .npy of format " + major + ", which HeadScope does not read (1 to 3).");
    }
    String header = new String(readFully(in, headerLength, name),
        major == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
    Matcher d = DESCR.matcher(header);
    Matcher o = ORDER.matcher(header);
    Matcher s = SHAPE.matcher(header);
    if (!d.find() || !o.find() || !s.find()) {
      throw new HeadScopeException(name + " has a .npy header HeadScope cannot read: " + header.strip());
    }
    String descr = d.group(1);
    boolean fortran = o.group(1).equals("True");
    int[] shape = shape(s.group(1), name);
    long count = 1;
    for (int x : shape) {
      count *= x;
      if (count > MAX_VALUES) {
        throw new HeadScopeException(name + " declares more than " + MAX_VALUES + " values.");
      }
    }
    char order = descr.isEmpty() ? '?' : descr.charAt(0);
    String kind = descr.length() > 1 ? descr.substring(1) : "";
    if (descr.startsWith("|O") || descr.startsWith("O")) {
      throw new HeadScopeException(name + " is an array of Python objects, which would need unpickling: HeadScope "
          + "never unpickles. Save plain arrays (tokens as str: np.array(tokens, dtype=str)).");
    }
    boolean big = order == '>';
    if (kind.startsWith("U")) {
      int chars = Integer.parseInt(kind.substring(1));
      byte[] raw = readFully(in, Math.multiplyExact(Math.toIntExact(count), Math.multiplyExact(chars, 4)), name);
      ByteBuffer b = ByteBuffer.wrap(raw).order(big ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
      List<String> strings = new ArrayList<>((int) count);
      for (long i = 0; i < count; i++) {
        StringBuilder sb = new StringBuilder();
        for (int c = 0; c < chars; c++) {
          int cp = b.getInt();
          if (cp != 0) {
            if (!Character.isValidCodePoint(cp)) {
              throw new HeadScopeException(name + " holds a character that is not Unicode (" + cp + ").");
            }
            sb.appendCodePoint(cp);
          }
        }
        strings.add(sb.toString());
      }
      return new Array(shape, null, strings, false).withOrder(fortran, name);
    }
    int width;
    try {
      width = Integer.parseInt(kind.substring(1));
    } catch (RuntimeException e) {
      throw unsupported(name, descr);
    }
    char type = kind.isEmpty() ? '?' : kind.charAt(0);
    if (!(type == 'f' && (width == 2 || width == 4 || width == 8) || (type == 'i' || type == 'u')
        && (width == 1 || width == 2 || width == 4 || width == 8) || type == 'b' && width == 1)) {
      throw unsupported(name, descr);
    }
    byte[] raw = readFully(in, Math.multiplyExact(Math.toIntExact(count), width), name);
    ByteBuffer b = ByteBuffer.wrap(raw).order(big ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
    double[] values = new double[(int) count];
    for (int i = 0; i < values.length; i++) {
      values[i] = switch (type) {
        case 'f' -> width == 2 ? half(b.getShort()) : width == 4 ? b.getFloat() : b.getDouble();
        case 'b' -> b.get() != 0 ? 1 : 0;
        case 'u' -> width == 1 ? b.get() & 0xFF : width == 2 ? b.getShort() & 0xFFFF : width == 4
            ? b.getInt() & 0xFFFFFFFFL : unsignedLong(b.getLong());
        default -> width == 1 ? b.get() : width == 2 ? b.getShort() : width == 4 ? b.getInt() : b.getLong();
      };
    }
    return new Array(shape, values, null, type == 'f').withOrder(fortran, name);
  }

  /** IEEE 754 binary16 to a double (Java 17 has no Float.float16ToFloat). */
  static double half(short bits) {
    int h = bits & 0xFFFF;
    int sign = (h & 0x8000) != 0 ? -1 : 1;
    int exp = (h >>> 10) & 0x1F;
    int frac = h & 0x3FF;
    if (exp == 0x1F) {
      return frac == 0 ? sign * Double.POSITIVE_INFINITY : Double.NaN;
    }
    if (exp == 0) {
      return sign * frac * 0x1p-24;
    }
    return sign * (1 + frac / 1024.0) * Math.pow(2, exp - 15);
  }

  private static double unsignedLong(long v) {
    return v >= 0 ? v : (v >>> 1) * 2.0 + (v & 1);
  }

  private static HeadScopeException unsupported(String name, String descr) {
    return new HeadScopeException(name + " has the NumPy type '" + descr + "', which HeadScope does not read: "
        + "use float32 or float64 numbers, integers or str.");
  }

  private static int[] shape(String dims, String name) {
    List<Integer> out = new ArrayList<>();
    for (String part : dims.split(",")) {
      String t = part.strip();
      if (t.endsWith("L")) {
        t = t.substring(0, t.length() - 1);
      }
      if (t.isEmpty()) {
        continue;
      }
      try {
        int v = Integer.parseInt(t);
        if (v < 0) {
          throw new NumberFormatException();
        }
        out.add(v);
      } catch (NumberFormatException e) {
        throw new HeadScopeException(name + " has a shape HeadScope cannot read: (" + dims + ").");
      }
    }
    return out.stream().mapToInt(Integer::intValue).toArray();
  }

  private static byte[] readFully(InputStream in, int n, String name) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(Math.min(n, 1 << 20));
    byte[] buf = new byte[1 << 16];
    int left = n;
    while (left > 0) {
      int r = in.read(buf, 0, Math.min(buf.length, left));
      if (r < 0) {
        throw new HeadScopeException(name + " in the .npz ends before its " + n + " bytes.");
      }
      out.write(buf, 0, r);
      left -= r;
    }
    return out.toByteArray();
  }
}
