package io.headscope.model.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The references' own safetensors reader, written from the format's description (8-byte little-endian header
 * length, a JSON header of {@code name -> {dtype, shape, data_offsets}}, then the bytes), so that a yardstick
 * shares no code with the production reader it is meant to check. F64, F32, F16 and BF16 are decoded from their
 * bits and widened exactly to double; a tensor of another dtype (an I64 buffer) is listed with its shape and no
 * values.
 */
public final class ReferenceSafetensors {
  /** One tensor: its dtype and shape as the header says, and its values, row-major (null for other dtypes). */
  public record Tensor(String dtype, long[] shape, double[] values) {}

  private ReferenceSafetensors() {}

  public static Map<String, Tensor> read(Path file) {
    byte[] all;
    try {
      all = Files.readAllBytes(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ByteBuffer b = ByteBuffer.wrap(all).order(ByteOrder.LITTLE_ENDIAN);
    long headerLength = b.getLong(0);
    if (headerLength <= 0 || headerLength > all.length - 8) {
      throw new IllegalStateException(file + ": bad header length " + headerLength);
    }
    JsonNode header;
    try {
      header = new ObjectMapper().readTree(new String(all, 8, (int) headerLength, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    int dataStart = 8 + (int) headerLength;
    Map<String, Tensor> out = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = header.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (e.getKey().equals("__metadata__")) {
        continue;
      }
      JsonNode info = e.getValue();
      String dtype = info.get("dtype").asText();
      long[] shape = new long[info.get("shape").size()];
      long count = 1;
      for (int i = 0; i < shape.length; i++) {
        shape[i] = info.get("shape").get(i).asLong();
        count *= shape[i];
      }
      long begin = info.get("data_offsets").get(0).asLong();
      long end = info.get("data_offsets").get(1).asLong();
      int width = switch (dtype) {
        case "F64" -> 8;
        case "F32" -> 4;
        case "F16", "BF16" -> 2;
        default -> 0;
      };
      double[] values = null;
      if (width > 0) {
        if (end - begin != count * width) {
          throw new IllegalStateException(file + ": " + e.getKey() + " has " + (end - begin) + " bytes for " + count
              + " values of " + dtype);
        }
        int at = dataStart + (int) begin;
        values = new double[(int) count];
        for (int i = 0; i < values.length; i++) {
          values[i] = switch (dtype) {
            case "F64" -> b.getDouble(at + 8 * i);
            case "F32" -> b.getFloat(at + 4 * i);
            case "BF16" -> Float.intBitsToFloat((b.getShort(at + 2 * i) & 0xffff) << 16);
            default -> half(b.getShort(at + 2 * i));
          };
        }
      }
      out.put(e.getKey(), new Tensor(dtype, shape, values));
    }
    return out;
  }

  /** IEEE binary16 to double: sign, 5 exponent bits (bias 15), 10 fraction bits; subnormals below exponent 1. */
  static double half(short bits) {
    int s = (bits >> 15) & 1;
    int exp = (bits >> 10) & 0x1f;
    int frac = bits & 0x3ff;
    double mag = exp == 0 ? Math.scalb((double) frac, -24)
        : exp == 31 ? (frac == 0 ? Double.POSITIVE_INFINITY : Double.NaN)
        : Math.scalb(1024.0 + frac, exp - 25);
    return s == 1 ? -mag : mag;
  }
}
