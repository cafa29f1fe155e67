package io.headscope.model.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import io.headscope.model.core.HeadScopeException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The file a trace of summaries keeps its queries and keys in: what goes in comes back, and leaves nothing. */
class SpillFileTest {

  @TempDir
  Path folder;

  @Test
  void arraysWrittenOneAfterAnotherReadBackExactlyFromAnyOffset() {
    float[] first = new float[2 * 3 * 5 * 4];
    float[] second = new float[7];
    for (int i = 0; i < first.length; i++) {
      first[i] = (float) Math.sin(i) * 1e-3f * i; // values with all their bits in use
    }
    for (int i = 0; i < second.length; i++) {
      second[i] = Float.intBitsToFloat(0x7f7fffff - i); // the largest floats: no rounding may touch them
    }
    try (NDManager m = NDManager.newBaseManager(ai.djl.Device.cpu(), "PyTorch");
        SpillFile file = SpillFile.open(folder)) {
      NDArray a = m.create(first, new Shape(2, 3, 5, 4));
      SpillFile.Region ra = file.append(a.transpose(0, 1, 2, 3)); // a view: its values in row-major order
      SpillFile.Region rb = file.append(m.create(second, new Shape(7)));
      assertArrayEquals(new int[] {2, 3, 5, 4}, ra.shape());
      assertEquals(0, ra.offset());
      assertEquals(first.length * 4L, rb.offset());
      assertEquals((first.length + second.length) * 4L, file.size());
      assertArrayEquals(first, ra.read(0, first.length));
      int from = (1 * 3 + 2) * 5 * 4; // row 1, head 2: its (5, 4) block
      assertArrayEquals(java.util.Arrays.copyOfRange(first, from, from + 20), ra.read(from, 20));
      assertArrayEquals(second, rb.read(0, second.length));
      // a view that is not contiguous goes in as its logical values, as the group keys' strided slice does
      NDArray strided = a.get(new ai.djl.ndarray.index.NDIndex(":, 0:3:2"));
      SpillFile.Region rs = file.append(strided);
      assertArrayEquals(strided.toFloatArray(), rs.read(0, 2 * 2 * 5 * 4));
    }
  }

  @Test
  void theFileHasNoNameWhileOpenAndItsSpaceGoesWithIt() throws IOException {
    try (NDManager m = NDManager.newBaseManager(ai.djl.Device.cpu(), "PyTorch");
        SpillFile file = SpillFile.open(folder)) {
      file.append(m.ones(new Shape(1000)));
      try (Stream<Path> left = Files.list(folder)) {
        assertEquals(0, left.count(), "a spill file keeps no name in its folder, so a crash leaves nothing");
      }
      file.close();
      HeadScopeException e = assertThrows(HeadScopeException.class, () -> file.append(m.ones(new Shape(3))));
      assertTrue(e.getMessage().startsWith("Could not write"), e.getMessage());
    }
  }

  /**
   * A loop over many traces that keeps none must not hold a file descriptor per trace until the collector happens to
   * run: past {@link SpillFile#COLLECT_ABOVE} open files a new one asks for a collection first. 2,000 files made and
   * dropped (above the common limit of 1,024 descriptors) leave no more than that many open.
   */
  @Test
  void filesDroppedUnclosedAreClosedBeforeTheyPileUp() throws IOException {
    try (NDManager m = NDManager.newBaseManager(ai.djl.Device.cpu(), "PyTorch")) {
      NDArray a = m.ones(new Shape(16));
      int most = 0;
      for (int i = 0; i < 2000; i++) {
        SpillFile.open(folder).append(a); // dropped at once, as a trace nobody keeps
        most = Math.max(most, SpillFile.openCount());
      }
      assertTrue(most <= SpillFile.COLLECT_ABOVE + 1, "at most " + most + " open at once");
      long descriptors;
      try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
        descriptors = fds.count();
      }
      assertTrue(descriptors < 1000, descriptors + " descriptors open");
    }
  }

  @Test
  void aFolderThatCannotHoldFilesIsOneClearLine() throws IOException {
    Path notAFolder = Files.writeString(folder.resolve("plain-file"), "x");
    HeadScopeException e = assertThrows(HeadScopeException.class, () -> SpillFile.open(notAFolder));
    assertTrue(e.getMessage().contains(notAFolder.toString()), e.getMessage());
    assertFalse(e.getMessage().contains("\n"), e.getMessage());
    HeadScopeException missing = assertThrows(HeadScopeException.class,
        () -> SpillFile.open(folder.resolve("no-such-folder")));
    assertTrue(missing.getMessage().startsWith("Could not make a temporary file in"), missing.getMessage());
  }
}
