package io.headscope.model.checkpoint;

import io.headscope.model.core.HeadScopeException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Whether this machine can hold a checkpoint, asked before a byte of it is loaded. The engine computes in
 * float32, so every weight takes 4 bytes however it is stored (a bf16 1B model: 2.5 GB on disk, 4.9 GB
 * loaded); while one tensor is widened and copied it exists twice more (the Java buffer and torch's copy),
 * and a layer's query, key and value weights are fused into one copy. The need is therefore the float32
 * size plus twice the largest tensor plus the largest layer's attention weights, bounded above by float32
 * size + 3 x largest tensor.
 */
public final class WeightMemory {
  private WeightMemory() {}

  /** The bytes loading needs: the float32 size of every float tensor plus three times the largest. */
  public static long need(List<Safetensors> files) {
    long total = 0;
    long largest = 0;
    for (Safetensors f : files) {
      for (Safetensors.TensorInfo t : f.tensors().values()) {
        if (t.dtype().equals("F32") || t.dtype().equals("F16") || t.dtype().equals("BF16")) {
          long bytes = t.elementCount() * Float.BYTES;
          total += bytes;
          largest = Math.max(largest, bytes);
        }
      }
    }
    return total + 3 * largest;
  }

  /**
   * Refuses, in one line naming the memory both ways, a model that needs more than {@code available}
   * bytes; {@code available} below 0 means unknown (then nothing is refused).
   */
  public static void check(String name, long need, long available) {
    if (available >= 0 && need > available) {
      throw new HeadScopeException(String.format(Locale.ROOT, "%s needs about %.1f GB of memory to load (its weights "
          + "as float32, the precision HeadScope computes in), but this machine has %.1f GB available; close other "
          + "programs or use a smaller model.", name, need / 1e9, available / 1e9));
    }
  }

  /** Linux's {@code MemAvailable} in bytes, or -1 where it cannot be read (another system). */
  public static long available() {
    Path meminfo = Path.of("/proc/meminfo");
    try {
      if (!Files.isReadable(meminfo)) {
        return -1;
      }
      for (String line : Files.readAllLines(meminfo)) {
        if (line.startsWith("MemAvailable:")) {
          String[] parts = line.trim().split("\\s+");
          return Long.parseLong(parts[1]) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }
}
