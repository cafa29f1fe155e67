package io.headscope.analysis.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.core.HeadScopeException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link NpzReader} on files NumPy itself wrote ({@code np.savez_compressed}, float64 in Fortran order, int64,
 * str with characters beyond the BMP), on {@link Npz}'s own files, and on hand-made {@code .npy} bytes whose values
 * are known by construction (float16, big-endian, Fortran order); pickled objects and short files refused.
 */
class NpzReaderTest {
  @TempDir Path dir;

  @Test
  void readsWhatNumpyWrites() throws Exception {
    Path f = dir.resolve("numpy.npz");
    String script = String.join("\n",
        "import sys, numpy as np",
        "a = np.asfortranarray(np.arange(24, dtype=np.float64).reshape(2, 3, 4) / 8)",
        "assert a.flags.f_contiguous and not a.flags.c_contiguous",
        "np.savez_compressed(sys.argv[1], a=a, i=np.array([-3, 7], dtype=np.int64), s=np.array(['[CLS]', 'x\\U0001F600y', '']),",
        "    z=np.array(5), h=np.array([1.0, -2.0, 0.5], dtype=np.float16))");
    Process p = new ProcessBuilder(python(), "-c", script, f.toString()).redirectErrorStream(true).start();
    String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(said).isZero();
    Map<String, NpzReader.Array> r;
    try (var in = Files.newInputStream(f)) {
      r = NpzReader.read(in);
    }
    assertThat(r.keySet()).containsExactly("a", "i", "s", "z", "h");
    NpzReader.Array a = r.get("a");
    assertThat(a.shape()).containsExactly(2, 3, 4);
    for (int k = 0; k < 24; k++) {
      assertThat(a.numbers()[k]).isEqualTo(k / 8.0); // C order, whatever order NumPy stored
    }
    assertThat(a.floating()).isTrue();
    assertThat(r.get("i").numbers()).containsExactly(-3, 7);
    assertThat(r.get("i").floating()).isFalse();
    assertThat(r.get("s").strings()).containsExactly("[CLS]", "x\uD83D\uDE00y", "");
    assertThat(r.get("z").shape()).isEmpty();
    assertThat(r.get("z").numbers()).containsExactly(5);
    assertThat(r.get("h").numbers()).containsExactly(1.0, -2.0, 0.5);
  }

  @Test
  void readsWhatNpzWrites() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (Npz z = new Npz(out)) {
      z.floats("m", new float[][] {{0.25f, -1f, 3f}, {Float.MIN_VALUE, 1e30f, 0f}});
      z.ints("n", new int[] {1, -2});
      z.strings("t", List.of("a", "</script>"));
    }
    Map<String, NpzReader.Array> r = NpzReader.read(new ByteArrayInputStream(out.toByteArray()));
    assertThat(r.get("m").shape()).containsExactly(2, 3);
    assertThat(r.get("m").numbers()).containsExactly(0.25, -1, 3, Float.MIN_VALUE, 1e30f, 0);
    assertThat(r.get("n").numbers()).containsExactly(1, -2);
    assertThat(r.get("t").strings()).containsExactly("a", "</script>");
  }

  @Test
  void bigEndianFloat16AndFortranOrderByHand() throws IOException {
    // >f4 (2, 2) in Fortran order: stored a00 a10 a01 a11 = 1 2 3 4, so C order is 1 3 2 4
    ByteBuffer be = ByteBuffer.allocate(16).order(ByteOrder.BIG_ENDIAN);
    for (float v : new float[] {1, 2, 3, 4}) {
      be.putFloat(v);
    }
    // <f2: 0x3C00 = 1, 0xC000 = -2, 0x3800 = 0.5, 0x0001 = 2^-24 (the smallest subnormal)
    ByteBuffer half = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
    for (int bits : new int[] {0x3C00, 0xC000, 0x3800, 0x0001}) {
      half.putShort((short) bits);
    }
    byte[] zip = zip(Map.of("f", npy("{'descr': '>f4', 'fortran_order': True, 'shape': (2, 2), }", be.array()),
        "h", npy("{'descr': '<f2', 'fortran_order': False, 'shape': (4,), }", half.array())), true);
    Map<String, NpzReader.Array> r = NpzReader.read(new ByteArrayInputStream(zip));
    assertThat(r.get("f").numbers()).containsExactly(1, 3, 2, 4);
    assertThat(r.get("h").numbers()).containsExactly(1, -2, 0.5, Math.pow(2, -24));
  }

  @Test
  void refusesPicklesShortDataAndStrangers() throws IOException {
    byte[] pickled = zip(Map.of("o", npy("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", new byte[8])), false);
    assertThatThrownBy(() -> NpzReader.read(new ByteArrayInputStream(pickled)))
        .isInstanceOf(HeadScopeException.class).hasMessageContaining("never unpickles");
    byte[] shortData = zip(Map.of("s", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", new byte[8])), false);
    assertThatThrownBy(() -> NpzReader.read(new ByteArrayInputStream(shortData)))
        .isInstanceOf(HeadScopeException.class).hasMessageContaining("ends before");
    byte[] huge = zip(Map.of("b", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 100000), }",
        new byte[0])), false);
    assertThatThrownBy(() -> NpzReader.read(new ByteArrayInputStream(huge)))
        .isInstanceOf(HeadScopeException.class).hasMessageContaining("more than");
    byte[] complex = zip(Map.of("c", npy("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", new byte[8])), false);
    assertThatThrownBy(() -> NpzReader.read(new ByteArrayInputStream(complex)))
        .isInstanceOf(HeadScopeException.class).hasMessageContaining("'<c8'");
    assertThatThrownBy(() -> NpzReader.read(new ByteArrayInputStream("not a zip at all".getBytes(StandardCharsets.UTF_8))))
        .isInstanceOf(HeadScopeException.class);
  }

  private static byte[] npy(String dict, byte[] data) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int unpadded = 10 + dict.length() + 1;
    String header = dict + " ".repeat((64 - unpadded % 64) % 64) + "\n";
    out.writeBytes(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0});
    out.write(header.length() & 0xFF);
    out.write(header.length() >>> 8);
    out.writeBytes(header.getBytes(StandardCharsets.US_ASCII));
    out.writeBytes(data);
    return out.toByteArray();
  }

  /** A ZIP of the entries, deflated (as np.savez_compressed) or stored (as np.savez). */
  private static byte[] zip(Map<String, byte[]> entries, boolean deflate) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (ZipOutputStream z = new ZipOutputStream(out)) {
      for (var e : new java.util.TreeMap<>(entries).entrySet()) {
        ZipEntry entry = new ZipEntry(e.getKey() + ".npy");
        if (!deflate) {
          java.util.zip.CRC32 crc = new java.util.zip.CRC32();
          crc.update(e.getValue());
          entry.setMethod(ZipEntry.STORED);
          entry.setSize(e.getValue().length);
          entry.setCompressedSize(e.getValue().length);
          entry.setCrc(crc.getValue());
        }
        z.putNextEntry(entry);
        z.write(e.getValue());
        z.closeEntry();
      }
    }
    return out.toByteArray();
  }

  private static String python() throws IOException, InterruptedException {
    for (String python : List.of("python3", "/usr/bin/python3")) {
      try {
        Process p = new ProcessBuilder(python, "-c", "import numpy").redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        if (p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0) {
          return python;
        }
      } catch (IOException notThere) {
        // try the next
      }
    }
    throw new AssertionError("No python3 with NumPy: this test reads files NumPy wrote. apt-get install python3-numpy.");
  }
}
