package io.headscope.analysis.heads.cnn;

import io.headscope.analysis.heads.HeadPattern;
import io.headscope.model.core.HeadScopeException;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The small convolutional network of Kovaleva et al. (issue 32) over {@link MapImage}s: a few
 * convolutions (3 x 3, padding 1, ReLU, 2 x 2 maximum pooling each), flattened, one linear layer to the
 * five {@link HeadPattern}s, softmax. Trained with DJL in the tests ({@code TrainCnn}); inference here
 * is plain Java loops, so the app needs no engine for it and the weights file needs no pickle.
 *
 * <p>The weights file ({@link #write}) is big-endian binary: the int {@link #MAGIC}, the int
 * {@link #VERSION}, a UTF description (what it was trained on), the number of tensors, then per tensor
 * its UTF name, its rank, its dimensions and its floats in row-major order. Tensors are named
 * {@code conv<k>.weight [out, in, 3, 3]}, {@code conv<k>.bias [out]}, {@code linear.weight [5, in]},
 * {@code linear.bias [5]}, as DJL lays them out; the flattening order is DJL's {@code (channel, row,
 * column)}.
 */
public final class CnnClassifier {
  public static final String RESOURCE = "/headscope/classifier/kovaleva-cnn.bin";
  static final int MAGIC = 0x48534e4e; // "HSNN"
  static final int VERSION = 1;

  /** A tensor: its shape and its values in row-major order. */
  public record Tensor(int[] shape, float[] values) {
    public Tensor {
      long n = 1;
      for (int d : shape) {
        n *= d;
      }
      if (n != values.length) {
        throw new HeadScopeException("A tensor of shape " + java.util.Arrays.toString(shape) + " cannot hold "
            + values.length + " values.");
      }
    }
  }

  /** One map's verdict: the category, its probability, and all five (in {@link HeadPattern} order). */
  public record Prediction(HeadPattern category, double confidence, double[] probabilities) {}

  private final Map<String, Tensor> tensors;
  private final String description;
  private final int convs;

  public CnnClassifier(Map<String, Tensor> tensors, String description) {
    this.tensors = new LinkedHashMap<>(tensors);
    this.description = description;
    int k = 0;
    while (tensors.containsKey("conv" + k + ".weight")) {
      k++;
    }
    this.convs = k;
    Tensor out = tensors.get("linear.weight");
    if (convs == 0 || out == null || out.shape()[0] != HeadPattern.values().length) {
      throw new HeadScopeException("The CNN's weights need conv0.weight and a linear.weight with "
          + HeadPattern.values().length + " rows; got " + tensors.keySet() + ".");
    }
    int side = MapImage.SIZE >> convs;
    int channels = tensors.get("conv" + (convs - 1) + ".weight").shape()[0];
    if (out.shape()[1] != channels * side * side) {
      throw new HeadScopeException("The CNN's linear layer reads " + out.shape()[1] + " values but its last "
          + "convolution gives " + channels * side * side + ".");
    }
  }

  /** The shipped network, from the resources module. */
  public static CnnClassifier shipped() {
    try (InputStream in = CnnClassifier.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new HeadScopeException("The CNN classifier " + RESOURCE + " is missing from the build.");
      }
      return read(in);
    } catch (IOException e) {
      throw new HeadScopeException("The CNN classifier " + RESOURCE + " cannot be read: " + e.getMessage(), e);
    }
  }

  public String description() {
    return description;
  }

  public Map<String, Tensor> tensors() {
    return java.util.Collections.unmodifiableMap(tensors);
  }

  /** How many weights the network has. */
  public int parameterCount() {
    return tensors.values().stream().mapToInt(t -> t.values().length).sum();
  }

  /** How many channels the network reads: {@link MapImage#CHANNELS}, or one more for the marked columns. */
  public int channels() {
    return tensors.get("conv0.weight").shape()[1];
  }

  /**
   * Classifies one head's map.
   *
   * @param segments token type per position, or null for a single sentence
   * @param tokens the input's tokens (for the marked-columns channel, when the network reads it)
   */
  public Prediction classify(float[][] map, long[] segments, java.util.List<String> tokens) {
    return predict(channels() == MapImage.CHANNELS ? MapImage.of(map, segments)
        : MapImage.of(map, segments, MapImage.marked(tokens)));
  }

  public Prediction predict(float[][][] image) {
    double[] p = probabilities(image);
    int best = 0;
    for (int k = 1; k < p.length; k++) {
      if (p[k] > p[best]) {
        best = k;
      }
    }
    return new Prediction(HeadPattern.values()[best], p[best], p);
  }

  public double[] probabilities(float[][][] image) {
    double[] z = logits(image);
    double max = Double.NEGATIVE_INFINITY;
    for (double v : z) {
      max = Math.max(max, v);
    }
    double sum = 0;
    double[] p = new double[z.length];
    for (int k = 0; k < z.length; k++) {
      p[k] = Math.exp(z[k] - max);
      sum += p[k];
    }
    for (int k = 0; k < z.length; k++) {
      p[k] /= sum;
    }
    return p;
  }

  /** The network's output before the softmax. */
  public double[] logits(float[][][] image) {
    float[][][] x = image;
    for (int k = 0; k < convs; k++) {
      x = maxPool(relu(conv3x3(x, tensors.get("conv" + k + ".weight"), tensors.get("conv" + k + ".bias"))));
    }
    Tensor w = tensors.get("linear.weight");
    Tensor b = tensors.get("linear.bias");
    int in = w.shape()[1];
    float[] flat = new float[in];
    int i = 0;
    for (float[][] channel : x) {
      for (float[] row : channel) {
        for (float v : row) {
          flat[i++] = v;
        }
      }
    }
    double[] z = new double[w.shape()[0]];
    for (int o = 0; o < z.length; o++) {
      double s = b.values()[o];
      for (int j = 0; j < in; j++) {
        s += (double) w.values()[o * in + j] * flat[j];
      }
      z[o] = s;
    }
    return z;
  }

  /** A 3 x 3 convolution with zero padding of one (the same size out). */
  static float[][][] conv3x3(float[][][] x, Tensor w, Tensor b) {
    int out = w.shape()[0];
    int in = w.shape()[1];
    if (in != x.length) {
      throw new HeadScopeException("A convolution reading " + in + " channels got " + x.length + ".");
    }
    int h = x[0].length;
    int wd = x[0][0].length;
    float[][][] y = new float[out][h][wd];
    float[] wv = w.values();
    for (int o = 0; o < out; o++) {
      for (int r = 0; r < h; r++) {
        for (int c = 0; c < wd; c++) {
          double s = b.values()[o];
          for (int ci = 0; ci < in; ci++) {
            for (int dr = -1; dr <= 1; dr++) {
              int rr = r + dr;
              if (rr < 0 || rr >= h) {
                continue;
              }
              for (int dc = -1; dc <= 1; dc++) {
                int cc = c + dc;
                if (cc < 0 || cc >= wd) {
                  continue;
                }
                s += (double) wv[((o * in + ci) * 3 + dr + 1) * 3 + dc + 1] * x[ci][rr][cc];
              }
            }
          }
          y[o][r][c] = (float) s;
        }
      }
    }
    return y;
  }

  static float[][][] relu(float[][][] x) {
    for (float[][] ch : x) {
      for (float[] row : ch) {
        for (int j = 0; j < row.length; j++) {
          row[j] = Math.max(0, row[j]);
        }
      }
    }
    return x;
  }

  /** 2 x 2 maximum pooling with stride 2. */
  static float[][][] maxPool(float[][][] x) {
    int h = x[0].length / 2;
    int w = x[0][0].length / 2;
    float[][][] y = new float[x.length][h][w];
    for (int ch = 0; ch < x.length; ch++) {
      for (int r = 0; r < h; r++) {
        for (int c = 0; c < w; c++) {
          y[ch][r][c] = Math.max(Math.max(x[ch][2 * r][2 * c], x[ch][2 * r][2 * c + 1]),
              Math.max(x[ch][2 * r + 1][2 * c], x[ch][2 * r + 1][2 * c + 1]));
        }
      }
    }
    return y;
  }

  public void write(Path file) throws IOException {
    try (OutputStream o = Files.newOutputStream(file)) {
      write(o);
    }
  }

  public void write(OutputStream o) throws IOException {
    DataOutputStream out = new DataOutputStream(new BufferedOutputStream(o));
    out.writeInt(MAGIC);
    out.writeInt(VERSION);
    out.writeUTF(description);
    out.writeInt(tensors.size());
    for (Map.Entry<String, Tensor> e : tensors.entrySet()) {
      out.writeUTF(e.getKey());
      int[] shape = e.getValue().shape();
      out.writeInt(shape.length);
      for (int d : shape) {
        out.writeInt(d);
      }
      for (float v : e.getValue().values()) {
        out.writeFloat(v);
      }
    }
    out.flush();
  }

  public static CnnClassifier read(InputStream raw) throws IOException {
    DataInputStream in = new DataInputStream(new BufferedInputStream(raw));
    if (in.readInt() != MAGIC) {
      throw new HeadScopeException("This is not a HeadScope CNN weights file.");
    }
    int version = in.readInt();
    if (version != VERSION) {
      throw new HeadScopeException("CNN weights file version " + version + "; this build reads " + VERSION + ".");
    }
    String description = in.readUTF();
    int n = in.readInt();
    Map<String, Tensor> tensors = new LinkedHashMap<>();
    for (int t = 0; t < n; t++) {
      String name = in.readUTF();
      int rank = in.readInt();
      int[] shape = new int[rank];
      int size = 1;
      for (int d = 0; d < rank; d++) {
        shape[d] = in.readInt();
        size *= shape[d];
      }
      float[] v = new float[size];
      for (int k = 0; k < size; k++) {
        v[k] = in.readFloat();
      }
      tensors.put(name, new Tensor(shape, v));
    }
    return new CnnClassifier(tensors, description);
  }

  /** The tensor names in the order {@code conv0.weight, conv0.bias, ..., linear.weight, linear.bias}. */
  public static List<String> names(int convs) {
    List<String> out = new ArrayList<>();
    for (int k = 0; k < convs; k++) {
      out.add("conv" + k + ".weight");
      out.add("conv" + k + ".bias");
    }
    out.add("linear.weight");
    out.add("linear.bias");
    return out;
  }
}
