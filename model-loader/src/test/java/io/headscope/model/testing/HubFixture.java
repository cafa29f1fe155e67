package io.headscope.model.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A checkpoint transformers made and ran (model-loader/src/test/transformers/make_fixtures.py), read for a
 * test: {@code config.json}, every weight of every {@code model*.safetensors} widened to double (F64, F32,
 * F16 and BF16 decoded here from the bits, not by the engine's reader), and the expected maps and ids
 * transformers computed in float64 ({@code expected.safetensors}, {@code expected.json}).
 */
public final class HubFixture {
  /** One tensor, row-major, widened exactly to double. */
  public record Tensor(double[] values, long[] shape) {}

  public final Path folder;
  public final JsonNode config;
  public final JsonNode expected;
  public final Map<String, Tensor> weights;
  private final Map<String, Tensor> maps;

  private HubFixture(Path folder) {
    this.folder = folder;
    ObjectMapper json = new ObjectMapper();
    try {
      this.config = json.readTree(folder.resolve("config.json").toFile());
      this.expected = json.readTree(folder.resolve("expected.json").toFile());
      this.weights = new LinkedHashMap<>();
      try (Stream<Path> files = Files.list(folder)) {
        for (Path f : files.filter(p -> p.getFileName().toString().matches("model.*\\.safetensors")).sorted().toList()) {
          weights.putAll(read(f));
        }
      }
      this.maps = read(folder.resolve("expected.safetensors"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The fixture folder {@code name} under the test resources' {@code transformers/}. */
  public static HubFixture named(String name) {
    // from the test classpath (model-loader's test classes, or its test-jar's folder in a reactor build of app)
    java.net.URL url = HubFixture.class.getResource("/transformers/" + name + "/config.json");
    if (url != null && url.getProtocol().equals("file")) {
      try {
        return new HubFixture(Path.of(url.toURI()).getParent());
      } catch (java.net.URISyntaxException e) {
        throw new IllegalStateException(e);
      }
    }
    for (String root : new String[] {"src/test/resources/transformers", "../model-loader/src/test/resources/transformers",
        "model-loader/src/test/resources/transformers"}) {
      if (Files.isDirectory(Path.of(root, name))) {
        return new HubFixture(Path.of(root, name));
      }
    }
    throw new IllegalStateException("no fixture folder transformers/" + name);
  }

  /** The expected maps of one kind ({@code attention}, {@code encoder_attention}, ...): [layer][head][query][key]. */
  public double[][][][] maps(String kind) {
    Tensor t = maps.get(kind);
    int[] s = new int[4];
    for (int i = 0; i < 4; i++) {
      s[i] = (int) t.shape()[i];
    }
    double[][][][] out = new double[s[0]][s[1]][s[2]][s[3]];
    int n = 0;
    for (int l = 0; l < s[0]; l++) {
      for (int h = 0; h < s[1]; h++) {
        for (int q = 0; q < s[2]; q++) {
          for (int k = 0; k < s[3]; k++) {
            out[l][h][q][k] = t.values()[n++];
          }
        }
      }
    }
    return out;
  }

  /** An expected vector ({@code logits_at}: [token]). */
  public double[] vector(String kind) {
    return maps.get(kind).values().clone();
  }

  /** An expected matrix ({@code logits}: [position][token]). */
  public double[][] matrix(String kind) {
    Tensor t = maps.get(kind);
    int rows = (int) t.shape()[0];
    int cols = (int) t.shape()[1];
    double[][] out = new double[rows][cols];
    for (int r = 0; r < rows; r++) {
      System.arraycopy(t.values(), r * cols, out[r], 0, cols);
    }
    return out;
  }

  public long[] ids(String key) {
    JsonNode a = expected.get(key);
    long[] out = new long[a.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = a.get(i).asLong();
    }
    return out;
  }

  public List<String> tokens(String key) {
    return java.util.stream.StreamSupport.stream(expected.get(key).spliterator(), false).map(JsonNode::asText).toList();
  }

  public String text(String key) {
    return expected.get(key).asText();
  }

  /** Every tensor of one safetensors file, decoded from its bytes. */
  /**
   * {@code {x, bound}}: transformers' maps x and each entry's parity bound, {@code lambda sigma + |R - X|}: lambda
   * standard deviations of the float32 error our float64 reference R derives, plus R's own distance from transformers
   * (whose "float64" eager path still rounds some steps in float32; TransformersParityTest).
   */
  public static double[][][][][] withParityBounds(double[][][][] x, double[][][][] ref, double[][][][] sigma,
      double lambda) {
    double[][][][] bound = new double[x.length][][][];
    for (int l = 0; l < x.length; l++) {
      bound[l] = new double[x[l].length][][];
      for (int h = 0; h < x[l].length; h++) {
        bound[l][h] = new double[x[l][h].length][];
        for (int q = 0; q < x[l][h].length; q++) {
          bound[l][h][q] = new double[x[l][h][q].length];
          for (int k = 0; k < x[l][h][q].length; k++) {
            bound[l][h][q][k] = lambda * sigma[l][h][q][k] + Math.abs(ref[l][h][q][k] - x[l][h][q][k]);
          }
        }
      }
    }
    return new double[][][][][] {x, bound};
  }

  static Map<String, Tensor> read(Path file) {
    Map<String, Tensor> out = new LinkedHashMap<>();
    ReferenceSafetensors.read(file).forEach((name, t) -> {
      if (t.values() == null) {
        throw new IllegalArgumentException(file + ": dtype " + t.dtype());
      }
      out.put(name, new Tensor(t.values(), t.shape()));
    });
    return out;
  }
}
