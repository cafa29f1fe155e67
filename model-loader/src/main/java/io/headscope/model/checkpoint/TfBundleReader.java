package io.headscope.model.checkpoint;

import io.headscope.model.core.HeadScopeException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a TensorFlow checkpoint bundle ({@code variables.index} + {@code variables.data-00000-of-00001})
 * in pure Java, so the app never needs TensorFlow.
 *
 * <p>The index is a LevelDB-format table (see METHODS.md): a 48-byte footer pointing at an index
 * block, whose entries point at data blocks of prefix-compressed key/value entries. Each value is a
 * {@code BundleEntryProto} giving dtype, shape, shard, offset and size of one tensor in the data file.
 * Only uncompressed tables and float32 tensors in a single shard occur in BERT checkpoints; anything
 * else is refused with a message naming the tensor.
 */
public final class TfBundleReader {
  private static final long TABLE_MAGIC = 0xdb4775248b80fb57L;
  private static final int FOOTER_LENGTH = 48;
  private static final int BLOCK_TRAILER_LENGTH = 5; // 1-byte compression type + 4-byte crc32c
  private static final int DT_FLOAT = 1;

  /** Where one tensor lives in the data file. */
  public record Entry(String name, int dtype, long[] shape, int shard, long offset, long size) {}

  private TfBundleReader() {}

  /** Lists every tensor of the bundle, in key order, without reading any data. */
  public static List<Entry> readIndex(Path indexFile) {
    byte[] table;
    try {
      table = Files.readAllBytes(indexFile);
    } catch (IOException e) {
      throw new HeadScopeException("Cannot read " + indexFile + ": " + e.getMessage(), e);
    }
    if (table.length < FOOTER_LENGTH) {
      throw corrupt(indexFile, "too short for a table footer");
    }
    ByteBuffer footer =
        ByteBuffer.wrap(table, table.length - FOOTER_LENGTH, FOOTER_LENGTH)
            .order(ByteOrder.LITTLE_ENDIAN);
    long magic = ByteBuffer.wrap(table, table.length - 8, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
    if (magic != TABLE_MAGIC) {
      throw corrupt(indexFile, "bad table magic");
    }
    Cursor f = new Cursor(table, table.length - FOOTER_LENGTH);
    f.varint(); // metaindex offset: unused (no filters in tensor bundles)
    f.varint(); // metaindex size
    long indexOffset = f.varint();
    long indexSize = f.varint();
    footer.clear();

    List<Entry> entries = new ArrayList<>();
    for (byte[][] kv : readBlock(table, indexFile, indexOffset, indexSize)) {
      Cursor handle = new Cursor(kv[1], 0);
      long offset = handle.varint();
      long size = handle.varint();
      for (byte[][] entry : readBlock(table, indexFile, offset, size)) {
        String name = new String(entry[0], StandardCharsets.UTF_8);
        if (!name.isEmpty()) { // the empty key holds the BundleHeaderProto
          entries.add(parseEntry(name, entry[1], indexFile));
        }
      }
    }
    return entries;
  }

  /**
   * Reads every float32 tensor of the bundle into memory, keyed by its TensorFlow name.
   *
   * @param indexFile {@code variables.index}; the data file is the one beside it
   */
  public static Map<String, FloatTensor> readAll(Path indexFile, Path dataFile) {
    List<Entry> entries = readIndex(indexFile);
    Map<String, FloatTensor> tensors = new LinkedHashMap<>();
    try (FileChannel data = FileChannel.open(dataFile, StandardOpenOption.READ)) {
      long dataSize = data.size();
      for (Entry e : entries) {
        if (e.dtype() != DT_FLOAT) {
          continue; // global_step and friends: not weights
        }
        if (e.shard() != 0) {
          throw new HeadScopeException(
              indexFile + ": tensor " + e.name() + " is in shard " + e.shard() + "; only one shard is supported");
        }
        long count = 1;
        for (long s : e.shape()) {
          count *= s;
        }
        if (e.size() != count * Float.BYTES || e.offset() + e.size() > dataSize) {
          throw corrupt(dataFile, "tensor " + e.name() + " does not fit the data file");
        }
        ByteBuffer bytes = ByteBuffer.allocate((int) e.size()).order(ByteOrder.LITTLE_ENDIAN);
        while (bytes.hasRemaining()) {
          if (data.read(bytes, e.offset() + bytes.position()) < 0) {
            throw corrupt(dataFile, "unexpected end while reading " + e.name());
          }
        }
        bytes.flip();
        FloatBuffer floats = bytes.asFloatBuffer();
        float[] values = new float[(int) count];
        floats.get(values);
        tensors.put(e.name(), new FloatTensor(e.name(), e.shape(), values));
      }
    } catch (IOException ex) {
      throw new HeadScopeException("Cannot read " + dataFile + ": " + ex.getMessage(), ex);
    }
    return tensors;
  }

  // --- LevelDB block -------------------------------------------------------------------------

  /** Decodes one block into (key, value) pairs; keys are prefix-compressed against the previous. */
  private static List<byte[][]> readBlock(byte[] table, Path file, long offset, long size) {
    if (offset < 0 || size < 4 || offset + size + BLOCK_TRAILER_LENGTH > table.length) {
      throw corrupt(file, "block handle out of range");
    }
    int start = (int) offset;
    int end = (int) (offset + size);
    if (table[end] != 0) {
      throw corrupt(file, "compressed table blocks are not supported");
    }
    int numRestarts =
        ByteBuffer.wrap(table, end - 4, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
    int entriesEnd = end - 4 - 4 * numRestarts;
    if (numRestarts < 0 || entriesEnd < start) {
      throw corrupt(file, "bad restart array");
    }
    List<byte[][]> out = new ArrayList<>();
    byte[] key = new byte[0];
    Cursor c = new Cursor(table, start);
    while (c.pos < entriesEnd) {
      int shared = (int) c.varint();
      int nonShared = (int) c.varint();
      int valueLength = (int) c.varint();
      if (shared > key.length || c.pos + nonShared + valueLength > entriesEnd) {
        throw corrupt(file, "bad block entry");
      }
      byte[] next = new byte[shared + nonShared];
      System.arraycopy(key, 0, next, 0, shared);
      System.arraycopy(table, c.pos, next, shared, nonShared);
      c.pos += nonShared;
      byte[] value = new byte[valueLength];
      System.arraycopy(table, c.pos, value, 0, valueLength);
      c.pos += valueLength;
      key = next;
      out.add(new byte[][] {key, value});
    }
    return out;
  }

  // --- BundleEntryProto ----------------------------------------------------------------------

  private static Entry parseEntry(String name, byte[] proto, Path file) {
    int dtype = 0;
    int shard = 0;
    long offset = 0;
    long size = 0;
    List<Long> dims = new ArrayList<>();
    Cursor c = new Cursor(proto, 0);
    while (c.pos < proto.length) {
      long tag = c.varint();
      int field = (int) (tag >>> 3);
      int wire = (int) (tag & 7);
      switch (field) {
        case 1 -> dtype = (int) c.varint();
        case 2 -> parseShape(c.bytes(), dims);
        case 3 -> shard = (int) c.varint();
        case 4 -> offset = c.varint();
        case 5 -> size = c.varint();
        default -> c.skip(wire, file);
      }
    }
    long[] shape = dims.stream().mapToLong(Long::longValue).toArray();
    return new Entry(name, dtype, shape, shard, offset, size);
  }

  /** TensorShapeProto: repeated Dim dim = 2; Dim { int64 size = 1; string name = 2; }. */
  private static void parseShape(byte[] proto, List<Long> dims) {
    Cursor c = new Cursor(proto, 0);
    while (c.pos < proto.length) {
      long tag = c.varint();
      if ((tag >>> 3) == 2) {
        Cursor dim = new Cursor(c.bytes(), 0);
        long size = 0;
        while (dim.pos < dim.buf.length) {
          long t = dim.varint();
          if ((t >>> 3) == 1) {
            size = dim.varint();
          } else {
            dim.skip((int) (t & 7), null);
          }
        }
        dims.add(size);
      } else {
        c.skip((int) (tag & 7), null);
      }
    }
  }

  private static HeadScopeException corrupt(Path file, String what) {
    return new HeadScopeException(file + " is not a readable TensorFlow checkpoint: " + what + ".");
  }

  /** A read position in a byte array with protobuf/LevelDB varint decoding. */
  private static final class Cursor {
    final byte[] buf;
    int pos;

    Cursor(byte[] buf, int pos) {
      this.buf = buf;
      this.pos = pos;
    }

    long varint() {
      long result = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        byte b = buf[pos++];
        result |= (long) (b & 0x7f) << shift;
        if ((b & 0x80) == 0) {
          return result;
        }
      }
      throw new IllegalStateException("varint too long");
    }

    byte[] bytes() {
      int n = (int) varint();
      byte[] out = new byte[n];
      System.arraycopy(buf, pos, out, 0, n);
      pos += n;
      return out;
    }

    void skip(int wireType, Path file) {
      switch (wireType) {
        case 0 -> varint();
        case 1 -> pos += 8;
        case 2 -> pos += (int) varint();
        case 5 -> pos += 4;
        default -> throw new HeadScopeException(
            (file == null ? "checkpoint" : file.toString()) + ": unknown protobuf wire type " + wireType + ".");
      }
    }
  }
}
