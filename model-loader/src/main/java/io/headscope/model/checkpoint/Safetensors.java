package io.headscope.model.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.headscope.model.core.HeadScopeException;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The safetensors format: an 8-byte little-endian header length, a JSON header naming each tensor's
 * dtype, shape and byte range, then the raw little-endian data. No code runs on load, unlike pickle.
 *
 * <p>{@link #open} validates the whole header against the file before anything is read, so a
 * truncated or corrupt file fails with a message naming the file and the tensor.
 */
public final class Safetensors implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long MAX_HEADER = 100L << 20;

  /** One tensor's place in the file. {@code dtype} is safetensors' name: F32, F16, BF16, I64, ... */
  public record TensorInfo(String name, String dtype, long[] shape, long begin, long end) {
    public long elementCount() {
      long n = 1;
      for (long s : shape) {
        n *= s;
      }
      return n;
    }
  }

  private final Path file;
  private final FileChannel channel;
  private final long dataStart;
  private final Map<String, TensorInfo> tensors;

  private Safetensors(Path file, FileChannel channel, long dataStart, Map<String, TensorInfo> tensors) {
    this.file = file;
    this.channel = channel;
    this.dataStart = dataStart;
    this.tensors = tensors;
  }

  /** Opens and validates a safetensors file; the data is read lazily by {@link #bytes}. */
  public static Safetensors open(Path file) {
    FileChannel channel = null;
    try {
      channel = FileChannel.open(file, StandardOpenOption.READ);
      long size = channel.size();
      if (size < 8) {
        throw corrupt(file, "the file is shorter than its 8-byte header length");
      }
      ByteBuffer len = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
      readFully(channel, len, 0);
      long headerLength = len.flip().getLong();
      if (headerLength <= 0 || headerLength > MAX_HEADER || 8 + headerLength > size) {
        throw corrupt(file, "the header length " + headerLength + " does not fit a file of " + size + " bytes");
      }
      ByteBuffer header = ByteBuffer.allocate((int) headerLength);
      readFully(channel, header, 8);
      JsonNode root;
      try {
        root = JSON.readTree(new String(header.array(), StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw corrupt(file, "the header is not valid JSON");
      }
      if (root == null || !root.isObject()) {
        throw corrupt(file, "the header is not a JSON object");
      }
      long dataStart = 8 + headerLength;
      long dataLength = size - dataStart;
      Map<String, TensorInfo> tensors = new LinkedHashMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> f = it.next();
        if (f.getKey().equals("__metadata__")) {
          continue;
        }
        tensors.put(f.getKey(), parseInfo(file, f.getKey(), f.getValue(), dataLength));
      }
      FileChannel opened = channel;
      channel = null;
      return new Safetensors(file, opened, dataStart, tensors);
    } catch (IOException e) {
      throw new HeadScopeException("Cannot read " + file + ": " + e.getMessage(), e);
    } finally {
      if (channel != null) {
        try {
          channel.close();
        } catch (IOException ignored) {
          // already failing
        }
      }
    }
  }

  private static TensorInfo parseInfo(Path file, String name, JsonNode node, long dataLength) {
    JsonNode shapeNode = node.get("shape");
    JsonNode offsets = node.get("data_offsets");
    String dtype = node.path("dtype").asText("");
    if (shapeNode == null || !shapeNode.isArray() || offsets == null || offsets.size() != 2) {
      throw corrupt(file, "tensor " + name + " has no shape or data_offsets");
    }
    long[] shape = new long[shapeNode.size()];
    for (int i = 0; i < shape.length; i++) {
      shape[i] = shapeNode.get(i).asLong(-1);
      if (shape[i] < 0) {
        throw corrupt(file, "tensor " + name + " has a negative dimension");
      }
    }
    long begin = offsets.get(0).asLong(-1);
    long end = offsets.get(1).asLong(-1);
    TensorInfo info = new TensorInfo(name, dtype, shape, begin, end);
    int width = dtypeWidth(dtype);
    if (width < 0) {
      throw corrupt(file, "tensor " + name + " has unsupported dtype " + dtype);
    }
    if (begin < 0 || end < begin || end > dataLength) {
      throw corrupt(file, "tensor " + name + " lies beyond the end of the file (truncated download?)");
    }
    long bytes;
    try {
      long count = 1;
      for (long d : shape) {
        count = Math.multiplyExact(count, d);
      }
      bytes = Math.multiplyExact(count, (long) width);
    } catch (ArithmeticException e) {
      throw corrupt(file, "tensor " + name + " has shape " + Arrays.toString(shape)
          + ", more elements than any file can hold");
    }
    if (end - begin != bytes) {
      throw corrupt(file, "tensor " + name + " has " + (end - begin) + " bytes for shape "
          + Arrays.toString(shape) + " of " + dtype);
    }
    return info;
  }

  /** Bytes per element, or -1 for a dtype we do not read. */
  public static int dtypeWidth(String dtype) {
    return switch (dtype) {
      case "F32", "I32" -> 4;
      case "F16", "BF16" -> 2;
      case "I64", "F64" -> 8;
      case "U8", "I8", "BOOL" -> 1;
      default -> -1;
    };
  }

  public Path file() {
    return file;
  }

  public Map<String, TensorInfo> tensors() {
    return tensors;
  }

  /** The raw little-endian bytes of one tensor, in a direct buffer (memory-mapped). */
  public ByteBuffer bytes(TensorInfo t) {
    try {
      return channel
          .map(FileChannel.MapMode.READ_ONLY, dataStart + t.begin(), t.end() - t.begin())
          .order(ByteOrder.LITTLE_ENDIAN);
    } catch (IOException e) {
      throw new HeadScopeException("Cannot read tensor " + t.name() + " from " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Unmaps a buffer {@link #bytes} returned, once its contents have been copied: the file's pages then
   * leave the process's resident memory at once instead of at some later garbage collection (two
   * loaded models otherwise kept 880 MB of mapped pages resident, as measured with {@code compare}).
   * The buffer must not be read afterwards. Where the JDK does not offer it, the collector unmaps later.
   */
  public static void unmap(ByteBuffer mapped) {
    if (!(mapped instanceof java.nio.MappedByteBuffer) || UNMAPPER == null) {
      return;
    }
    try {
      UNMAPPER.invoke(UNSAFE, mapped);
    } catch (ReflectiveOperationException | IllegalArgumentException e) {
      // a slice or duplicate, or a JDK without it: the garbage collector unmaps it later
    }
  }

  private static final Object UNSAFE;
  private static final java.lang.reflect.Method UNMAPPER;

  static {
    Object unsafe = null;
    java.lang.reflect.Method invokeCleaner = null;
    try {
      Class<?> c = Class.forName("sun.misc.Unsafe");
      java.lang.reflect.Field f = c.getDeclaredField("theUnsafe");
      f.setAccessible(true);
      unsafe = f.get(null);
      invokeCleaner = c.getMethod("invokeCleaner", ByteBuffer.class);
    } catch (ReflectiveOperationException | RuntimeException e) {
      unsafe = null;
      invokeCleaner = null;
    }
    UNSAFE = unsafe;
    UNMAPPER = invokeCleaner;
  }

  /** Reads a float32 tensor into Java memory (for conversion and tests). */
  public FloatTensor readFloat(String name) {
    TensorInfo t = tensors.get(name);
    if (t == null) {
      throw new HeadScopeException(file + " has no tensor " + name + ".");
    }
    if (!t.dtype().equals("F32")) {
      throw new HeadScopeException(file + ": tensor " + name + " is " + t.dtype() + ", expected F32.");
    }
    float[] data = new float[(int) t.elementCount()];
    ByteBuffer mapped = bytes(t);
    mapped.asFloatBuffer().get(data);
    unmap(mapped);
    return new FloatTensor(name, t.shape(), data);
  }

  @Override
  public void close() {
    try {
      channel.close();
    } catch (IOException ignored) {
      // nothing useful to do
    }
  }

  /**
   * Writes float32 tensors to a safetensors file, in the given order.
   *
   * <p>The caller chooses the path; conversion writes into a temporary folder that is renamed into
   * place only when complete, so no reader ever sees a half-written file.
   */
  public static void write(Path file, Collection<FloatTensor> tensors, Map<String, String> metadata)
      throws IOException {
    ObjectNode header = JSON.createObjectNode();
    if (!metadata.isEmpty()) {
      header.set("__metadata__", JSON.valueToTree(new java.util.TreeMap<>(metadata))); // sorted: reproducible bytes
    }
    long offset = 0;
    List<FloatTensor> ordered = new ArrayList<>(tensors);
    for (FloatTensor t : ordered) {
      ObjectNode info = header.putObject(t.name());
      info.put("dtype", "F32");
      var shape = info.putArray("shape");
      for (long s : t.shape()) {
        shape.add(s);
      }
      long bytes = (long) t.data().length * Float.BYTES;
      info.putArray("data_offsets").add(offset).add(offset + bytes);
      offset += bytes;
    }
    byte[] json = JSON.writeValueAsBytes(header);
    int padded = (json.length + 7) / 8 * 8; // keep the data 8-byte aligned, as the spec suggests
    byte[] headerBytes = Arrays.copyOf(json, padded);
    Arrays.fill(headerBytes, json.length, padded, (byte) ' ');
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 20)) {
      ByteBuffer len = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(padded);
      out.write(len.array());
      out.write(headerBytes);
      ByteBuffer chunk = ByteBuffer.allocate(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
      for (FloatTensor t : ordered) {
        float[] d = t.data();
        for (int i = 0; i < d.length; ) {
          int n = Math.min(chunk.capacity() / Float.BYTES, d.length - i);
          chunk.clear();
          chunk.asFloatBuffer().put(d, i, n);
          out.write(chunk.array(), 0, n * Float.BYTES);
          i += n;
        }
      }
    }
  }

  private static void readFully(FileChannel ch, ByteBuffer buf, long position) throws IOException {
    while (buf.hasRemaining()) {
      if (ch.read(buf, position + buf.position()) < 0) {
        throw new IOException("unexpected end of file");
      }
    }
  }

  private static HeadScopeException corrupt(Path file, String what) {
    return new HeadScopeException(file + " is not a valid safetensors file: " + what + ".");
  }
}
