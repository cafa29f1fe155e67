package io.headscope.model.checkpoint;

import io.headscope.model.core.HeadScopeException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The parts of an ONNX {@code ModelProto} a converter needs: the graph's initializers (the weights) and its
 * nodes (to tell what an anonymous initializer is, and to read constants such as LayerNorm's epsilon).
 *
 * <p>Field numbers are those of {@code onnx.proto} (ModelProto.graph = 7, GraphProto.node = 1,
 * GraphProto.initializer = 5, TensorProto.raw_data = 9, ...). Everything else in the file is skipped.
 *
 * @param source the file (or label) the graph was read from, for messages
 * @param inputs the graph's input names ({@code input_ids}, ...)
 * @param outputs the graph's output names ({@code last_hidden_state}, ...)
 */
public record OnnxGraph(String source, String producer, List<Initializer> initializers, List<Node> nodes,
    List<String> inputs, List<String> outputs) {

  /** TensorProto.DataType values that name a type in messages. */
  public static final int FLOAT = 1;

  /**
   * One initializer.
   *
   * @param dims the shape, outermost first (a MatMul weight is (in, out))
   * @param dataType {@code TensorProto.DataType} (1 float32, 7 int64, 10 float16, ...)
   * @param data the values, row-major, when {@code dataType} is float32; null otherwise (HeadScope reads
   *     only float32 weights; integer buffers such as {@code position_ids} are kept by name and shape)
   */
  public record Initializer(String name, long[] dims, int dataType, float[] data) {
    public long elementCount() {
      long n = 1;
      for (long d : dims) {
        n *= d;
      }
      return n;
    }
  }

  /**
   * One node.
   *
   * @param floats float attributes by name: {@code f}, {@code floats}, and a {@code t} holding a float32 tensor
   *     (a {@code Constant}'s {@code value})
   * @param ints integer attributes by name: {@code i} and {@code ints}
   */
  public record Node(String name, String opType, List<String> inputs, List<String> outputs,
      Map<String, float[]> floats, Map<String, long[]> ints) {}

  public Map<String, Initializer> initializersByName() {
    Map<String, Initializer> m = new HashMap<>();
    initializers.forEach(i -> m.put(i.name(), i));
    return m;
  }

  /** Reads a self-contained {@code .onnx} file (weights inside, at most 2 GB). */
  public static OnnxGraph read(Path file) {
    byte[] bytes;
    try {
      if (Files.size(file) > Integer.MAX_VALUE - 8) {
        throw new HeadScopeException(file + " is larger than 2 GB; HeadScope reads ONNX files up to 2 GB, "
            + "with their weights inside.");
      }
      bytes = Files.readAllBytes(file);
    } catch (IOException e) {
      throw new HeadScopeException("Cannot read " + file + ": " + e.getMessage(), e);
    }
    return parse(bytes, file.toString());
  }

  /** Parses the bytes of a {@code .onnx} file; {@code source} names it in messages. */
  public static OnnxGraph parse(byte[] bytes, String source) {
    try {
      return model(new ProtoReader(bytes), source);
    } catch (ProtoReader.Malformed e) {
      throw new HeadScopeException(source + " is not a complete ONNX file (truncated or corrupt): " + e.getMessage()
          + ".", e);
    }
  }

  private static OnnxGraph model(ProtoReader r, String source) {
    String producer = "";
    ProtoReader graph = null;
    boolean opset = false;
    while (r.hasNext()) {
      int field = r.nextField();
      if (field == 2 && r.wireType() == ProtoReader.LENGTH_DELIMITED) {
        producer = r.string();
      } else if (field == 7 && r.wireType() == ProtoReader.LENGTH_DELIMITED) {
        graph = r.message();
      } else if (field == 8 && r.wireType() == ProtoReader.LENGTH_DELIMITED) {
        opset = true;
        r.skip();
      } else {
        r.skip();
      }
    }
    // every ONNX writer puts opset_import after the graph: its absence means the file was cut off there
    if (graph == null || !opset) {
      throw new HeadScopeException(source + " is not a complete ONNX model: it has no "
          + (graph == null ? "graph" : "opset_import (cut off after the graph?)") + ".");
    }
    return graph(graph, source, producer);
  }

  private static OnnxGraph graph(ProtoReader r, String source, String producer) {
    List<Initializer> inits = new ArrayList<>();
    List<Node> nodes = new ArrayList<>();
    List<String> inputs = new ArrayList<>();
    List<String> outputs = new ArrayList<>();
    while (r.hasNext()) {
      int field = r.nextField();
      if (r.wireType() != ProtoReader.LENGTH_DELIMITED) {
        r.skip();
        continue;
      }
      switch (field) {
        case 1 -> nodes.add(node(r.message(), source));
        case 5 -> inits.add(tensor(r.message(), source));
        case 11 -> inputs.add(valueInfoName(r.message()));
        case 12 -> outputs.add(valueInfoName(r.message()));
        default -> r.skip();
      }
    }
    return new OnnxGraph(source, producer, List.copyOf(inits), List.copyOf(nodes), List.copyOf(inputs),
        List.copyOf(outputs));
  }

  private static String valueInfoName(ProtoReader r) {
    String name = "";
    while (r.hasNext()) {
      if (r.nextField() == 1 && r.wireType() == ProtoReader.LENGTH_DELIMITED) {
        name = r.string();
      } else {
        r.skip();
      }
    }
    return name;
  }

  private static Node node(ProtoReader r, String source) {
    List<String> in = new ArrayList<>();
    List<String> out = new ArrayList<>();
    String name = "";
    String op = "";
    Map<String, float[]> floats = new HashMap<>();
    Map<String, long[]> ints = new HashMap<>();
    while (r.hasNext()) {
      int field = r.nextField();
      if (r.wireType() != ProtoReader.LENGTH_DELIMITED) {
        r.skip();
        continue;
      }
      switch (field) {
        case 1 -> in.add(r.string());
        case 2 -> out.add(r.string());
        case 3 -> name = r.string();
        case 4 -> op = r.string();
        case 5 -> attribute(r.message(), source, floats, ints);
        default -> r.skip();
      }
    }
    return new Node(name, op, List.copyOf(in), List.copyOf(out), Map.copyOf(floats), Map.copyOf(ints));
  }

  /** AttributeProto: name 1, f 2, i 3, t 5, floats 7, ints 8 (each possibly packed). */
  private static void attribute(ProtoReader r, String source, Map<String, float[]> floats, Map<String, long[]> ints) {
    String name = "";
    FloatList fs = new FloatList();
    LongList is = new LongList();
    float[] tensor = null;
    while (r.hasNext()) {
      int field = r.nextField();
      switch (field) {
        case 1 -> name = r.wireType() == ProtoReader.LENGTH_DELIMITED ? r.string() : skipped(r);
        case 2, 7 -> readFloats(r, fs);
        case 3, 8 -> readInts(r, is);
        case 5 -> {
          if (r.wireType() == ProtoReader.LENGTH_DELIMITED) {
            Initializer t = tensor(r.message(), source);
            tensor = t.data();
          } else {
            r.skip();
          }
        }
        default -> r.skip();
      }
    }
    if (tensor != null) {
      floats.put(name, tensor);
    } else if (fs.size > 0) {
      floats.put(name, fs.toArray());
    }
    if (is.size > 0) {
      ints.put(name, is.toArray());
    }
  }

  private static String skipped(ProtoReader r) {
    r.skip();
    return "";
  }

  /** TensorProto: dims 1, data_type 2, float_data 4, name 8, raw_data 9, external_data 13, data_location 14. */
  private static Initializer tensor(ProtoReader r, String source) {
    LongList dims = new LongList();
    int dataType = 0;
    FloatList floatData = new FloatList();
    String name = "";
    int[] raw = null;
    boolean external = false;
    while (r.hasNext()) {
      int field = r.nextField();
      switch (field) {
        case 1 -> readInts(r, dims);
        case 2 -> dataType = (int) r.varint();
        case 4 -> readFloats(r, floatData);
        case 8 -> name = r.string();
        case 9 -> raw = r.lengthDelimited();
        case 13 -> {
          external = true;
          r.skip();
        }
        case 14 -> external |= r.varint() == 1; // DataLocation.EXTERNAL
        default -> r.skip();
      }
    }
    long[] shape = dims.toArray();
    if (external) {
      throw new HeadScopeException(source + ": tensor " + name + " keeps its data in an external file "
          + "(external_data); HeadScope reads ONNX files with every weight inside.");
    }
    long n = 1;
    for (long d : shape) {
      if (d < 0 || d > Integer.MAX_VALUE || (n *= d) > Integer.MAX_VALUE) {
        throw new ProtoReader.Malformed("tensor " + name + " has an impossible shape " + Arrays.toString(shape));
      }
    }
    if (dataType != FLOAT) {
      return new Initializer(name, shape, dataType, null);
    }
    float[] data;
    if (raw != null) {
      if (raw[1] - raw[0] != 4 * n) {
        throw new ProtoReader.Malformed("tensor " + name + " of shape " + Arrays.toString(shape) + " has "
            + (raw[1] - raw[0]) + " bytes of data, not " + 4 * n);
      }
      data = new float[(int) n];
      ByteBuffer.wrap(r.buffer(), raw[0], raw[1] - raw[0]).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(data);
    } else {
      if (floatData.size != n) {
        throw new ProtoReader.Malformed("tensor " + name + " of shape " + Arrays.toString(shape) + " has "
            + floatData.size + " values, not " + n);
      }
      data = floatData.toArray();
    }
    return new Initializer(name, shape, dataType, data);
  }

  private static void readFloats(ProtoReader r, FloatList out) {
    if (r.wireType() == ProtoReader.FIXED32) {
      out.add(Float.intBitsToFloat(r.fixed32()));
    } else if (r.wireType() == ProtoReader.LENGTH_DELIMITED) { // packed
      ProtoReader p = r.message();
      while (p.hasNext()) {
        out.add(Float.intBitsToFloat(p.fixed32()));
      }
    } else {
      r.skip();
    }
  }

  private static void readInts(ProtoReader r, LongList out) {
    if (r.wireType() == ProtoReader.VARINT) {
      out.add(r.varint());
    } else if (r.wireType() == ProtoReader.LENGTH_DELIMITED) { // packed
      ProtoReader p = r.message();
      while (p.hasNext()) {
        out.add(p.varint());
      }
    } else {
      r.skip();
    }
  }

  /** A growable float array: float_data of a large tensor would box millions of values in a List. */
  private static final class FloatList {
    float[] a = new float[8];
    int size;

    void add(float v) {
      if (size == a.length) {
        a = Arrays.copyOf(a, a.length * 2);
      }
      a[size++] = v;
    }

    float[] toArray() {
      return Arrays.copyOf(a, size);
    }
  }

  private static final class LongList {
    long[] a = new long[4];
    int size;

    void add(long v) {
      if (size == a.length) {
        a = Arrays.copyOf(a, a.length * 2);
      }
      a[size++] = v;
    }

    long[] toArray() {
      return Arrays.copyOf(a, size);
    }
  }
}
