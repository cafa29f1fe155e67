package io.headscope.analysis.export;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bytes of a .npy against NumPy's format 1.0 (numpy.lib.format), without NumPy. */
class NpzTest {
  @Test
  void aNpyStartsWithTheMagicVersionOneAndAHeaderThatEndsTheLineAtAMultipleOf64() {
    byte[] npy = Npz.npy("<f4", new int[] {2, 3}, new byte[24]);
    assertThat(Arrays.copyOf(npy, 8)).containsExactly(0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0);
    int headerLength = (npy[8] & 0xFF) | (npy[9] & 0xFF) << 8;
    assertThat((10 + headerLength) % 64).isZero();
    String header = new String(npy, 10, headerLength, StandardCharsets.US_ASCII);
    assertThat(header).startsWith("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }").endsWith(" \n");
    assertThat(header.strip()).endsWith("}");
    assertThat(npy).hasSize(10 + headerLength + 24);
  }

  @Test
  void aVectorsShapeHasItsTrailingComma() {
    byte[] npy = Npz.npy("<i4", new int[] {7}, new byte[28]);
    String header = new String(npy, 10, (npy[8] & 0xFF) | (npy[9] & 0xFF) << 8, StandardCharsets.US_ASCII);
    assertThat(header).startsWith("{'descr': '<i4', 'fortran_order': False, 'shape': (7,), }");
  }

  @Test
  void unicodeItemsAreUtf32LittleEndianPaddedToTheLongestInCodePoints() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (Npz npz = new Npz(out)) {
      npz.strings("t", List.of("a𝔘", ""));
    }
    byte[] zip = out.toByteArray();
    String all = new String(zip, StandardCharsets.ISO_8859_1);
    assertThat(all).contains("'descr': '<U2'").contains("'shape': (2,)");
    int data = all.indexOf("\n", all.indexOf("{'descr'")) + 1;
    assertThat(Arrays.copyOfRange(zip, data, data + 16))
        .containsExactly('a', 0, 0, 0, 0x18, 0xD5, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  }

  @Test
  void floatsAreLittleEndianInCOrder() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (Npz npz = new Npz(out)) {
      npz.floats("f", new float[][] {{1f, -2f}, {0.5f, 3f}});
    }
    byte[] zip = out.toByteArray();
    String all = new String(zip, StandardCharsets.ISO_8859_1);
    int data = all.indexOf("\n", all.indexOf("{'descr'")) + 1;
    assertThat(Arrays.copyOfRange(zip, data, data + 16)).containsExactly(
        0, 0, 0x80, 0x3F, 0, 0, 0, 0xC0, 0, 0, 0, 0x3F, 0, 0, 0x40, 0x40);
  }
}
