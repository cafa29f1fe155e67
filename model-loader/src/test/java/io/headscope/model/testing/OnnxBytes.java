package io.headscope.model.testing;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * A few lines of protobuf encoding, independent of the reader under test: enough to build tiny ONNX models
 * by hand (field numbers from {@code onnx.proto}) and to add outputs to a real one.
 */
public final class OnnxBytes {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();

  public static OnnxBytes message() {
    return new OnnxBytes();
  }

  public OnnxBytes varint(int field, long value) {
    key(field, 0);
    raw(value);
    return this;
  }

  public OnnxBytes bytes(int field, byte[] value) {
    key(field, 2);
    raw(value.length);
    out.writeBytes(value);
    return this;
  }

  public OnnxBytes string(int field, String value) {
    return bytes(field, value.getBytes(StandardCharsets.UTF_8));
  }

  public OnnxBytes message(int field, OnnxBytes value) {
    return bytes(field, value.toByteArray());
  }

  public OnnxBytes fixed32(int field, float value) {
    key(field, 5);
    int bits = Float.floatToIntBits(value);
    for (int i = 0; i < 4; i++) {
      out.write(bits >>> (8 * i));
    }
    return this;
  }

  /** Bytes copied as they are (fields encoded elsewhere). */
  public OnnxBytes append(byte[] encodedFields) {
    out.writeBytes(encodedFields);
    return this;
  }

  public byte[] toByteArray() {
    return out.toByteArray();
  }

  /** A float32 TensorProto: dims 1, data_type 2, name 8, raw_data 9 (little-endian). */
  public static OnnxBytes floatTensor(String name, long[] dims, float[] values) {
    OnnxBytes t = message();
    for (long d : dims) {
      t.varint(1, d);
    }
    ByteBuffer raw = ByteBuffer.allocate(4 * values.length).order(ByteOrder.LITTLE_ENDIAN);
    for (float v : values) {
      raw.putFloat(v);
    }
    return t.varint(2, 1).string(8, name).bytes(9, raw.array());
  }

  /** A NodeProto: input 1, output 2, name 3, op_type 4. */
  public static OnnxBytes node(String name, String op, String[] inputs, String[] outputs) {
    OnnxBytes n = message();
    for (String i : inputs) {
      n.string(1, i);
    }
    for (String o : outputs) {
      n.string(2, o);
    }
    return n.string(3, name).string(4, op);
  }

  /** A ModelProto around a graph: ir_version 1, producer_name 2, graph 7, opset_import 8 (version 2 = 17). */
  public static byte[] model(OnnxBytes graph) {
    return message().varint(1, 8).string(2, "hand").message(7, graph).message(8, message().varint(2, 17))
        .toByteArray();
  }

  /** A float32 graph output (ValueInfoProto: name 1, type 2 = TypeProto{tensor_type 1 = {elem_type 1}}). */
  public static OnnxBytes floatOutput(String name) {
    return message().string(1, name).message(2, message().message(1, message().varint(1, 1)));
  }

  private void key(int field, int wireType) {
    raw(((long) field << 3) | wireType);
  }

  private void raw(long v) {
    while ((v & ~0x7FL) != 0) {
      out.write((int) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }
}
