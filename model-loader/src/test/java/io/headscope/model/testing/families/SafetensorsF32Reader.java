package io.headscope.model.testing.families;

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
 * The reference forward pass's own safetensors reader, written from the format's description (8-byte
 * little-endian header length, a JSON header of {@code name -> {dtype, shape, data_offsets}}, then the
 * bytes), so that the yardstick shares no code with the production reader it is meant to check.
 *
 * <p>Only F32 tensors are decoded (widened to double); tensors of other dtypes are listed with their shape
 * but have no values.
 */
final class SafetensorsF32Reader {
  /** One tensor: its dtype and shape as the header says, and its values (null unless F32). */
  record Tensor(String dtype, long[] shape, double[] values) {}

  private SafetensorsF32Reader() {}

  static Map<String, Tensor> read(Path file) {
    byte[] all;
    try {
      all = Files.readAllBytes(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ByteBuffer buf = ByteBuffer.wrap(all).order(ByteOrder.LITTLE_ENDIAN);
    long headerLength = buf.getLong(0);
    if (headerLength <= 0 || headerLength > all.length - 8) {
      throw new IllegalStateException(file + ": bad header length " + headerLength);
    }
    String headerText = new String(all, 8, (int) headerLength, StandardCharsets.UTF_8);
    JsonNode header;
    try {
      header = new ObjectMapper().readTree(headerText);
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
      JsonNode shapeNode = info.get("shape");
      long[] shape = new long[shapeNode.size()];
      long count = 1;
      for (int i = 0; i < shape.length; i++) {
        shape[i] = shapeNode.get(i).asLong();
        count *= shape[i];
      }
      long begin = info.get("data_offsets").get(0).asLong();
      long end = info.get("data_offsets").get(1).asLong();
      double[] values = null;
      if (dtype.equals("F32")) {
        if (end - begin != count * 4) {
          throw new IllegalStateException(file + ": " + e.getKey() + " has " + (end - begin)
              + " bytes for " + count + " floats");
        }
        values = new double[(int) count];
        for (int i = 0; i < values.length; i++) {
          values[i] = buf.getFloat(dataStart + (int) begin + 4 * i);
        }
      }
      out.put(e.getKey(), new Tensor(dtype, shape, values));
    }
    return out;
  }
}
