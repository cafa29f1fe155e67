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

  /**
   * What one trace of a batch holds beyond the weights, in the JVM's heap and in native memory (estimates
   * from the shapes, the largest terms counted; issue 41's "Real sizes and lengths").
   *
   * @param javaBytes what the trace's arrays take in the heap: with every map kept, each map twice while the
   *     traces are built (the run's copy of each layer's (B, H, T, T) pattern and the traces' own arrays); with
   *     summaries, each layer's queries (B, H, T, dh) and group keys (B, K, T, dh), four numbers per row and
   *     a thumbnail per head; either way the value norms and the last hidden states
   * @param nativeBytes the largest one layer holds at once (the engine frees each layer's arrays before the
   *     next): its scores and pattern (2 B H T^2), its queries, keys, values and outputs (6 B T H dh), its MLP
   *     (4 B T f), and a summarised run's temporaries over four heads at a time (4 x 4 B T^2)
   */
  public record TraceNeed(long javaBytes, long nativeBytes) {
    public long total() {
      return javaBytes + nativeBytes;
    }
  }

  /**
   * The memory of one trace of {@code batch} inputs of {@code tokens} tokens.
   *
   * @param fullMaps every map kept ({@code TraceRequest.Keep.FULL_MAPS}), else summaries with thumbnails
   *     of {@code side}
   */
  public static TraceNeed traceNeed(io.headscope.model.core.BertConfig c, int batch, int tokens, boolean fullMaps,
      int side) {
    long b = batch;
    long t = tokens;
    long layers = c.numHiddenLayers();
    long heads = c.numAttentionHeads();
    long groups = c.parts().keyValueHeads();
    long dh = c.headSize();
    long g = Math.min(t, side);
    long common = layers * b * heads * t + b * t * c.hiddenSize(); // value norms, hidden states
    long java = fullMaps ? 2 * layers * b * heads * t * t
        : layers * b * (heads + groups) * t * dh + layers * b * heads * (4 * t + g * g);
    long perLayer = 2 * b * heads * t * t + 6 * b * t * heads * dh + 4 * b * t * c.intermediateSize()
        + (fullMaps ? 0 : 4 * 4 * b * t * t);
    return new TraceNeed(Float.BYTES * (java + common), Float.BYTES * perLayer);
  }

  /**
   * Refuses, in one line, a trace that cannot fit: its heap arrays beyond the JVM's largest heap ({@code
   * maxHeap}), or the whole beyond {@code available} (MemAvailable after the weights are loaded; below 0:
   * unknown, not checked).
   *
   * @param instead what a trace of summaries would need (named in the line when it would fit), or null
   */
  public static void checkTrace(String name, int tokens, TraceNeed need, TraceNeed instead, long available,
      long maxHeap) {
    boolean heap = need.javaBytes() > maxHeap;
    if (!heap && (available < 0 || need.total() <= available)) {
      return;
    }
    String room = heap ? String.format(Locale.ROOT, "the Java heap holds at most %.1f GB (-Xmx)", maxHeap / 1e9)
        : String.format(Locale.ROOT, "this machine has %.1f GB available", available / 1e9);
    String other = instead == null ? "use a shorter input or a smaller model."
        : String.format(Locale.ROOT, "a trace of summaries (the maps recomputed a head at a time) needs about %.1f GB.",
            instead.total() / 1e9);
    throw new HeadScopeException(String.format(Locale.ROOT, "%s at %d tokens needs about %.1f GB of memory for "
        + "one trace with every map kept, but %s; %s", name, tokens, need.total() / 1e9, room, other));
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
