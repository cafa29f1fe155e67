package io.headscope.model.testing;

import java.util.ArrayList;
import java.util.List;

/**
 * A hand-built ONNX graph with the shape of a PyTorch BERT export (one layer, hidden 4, two heads of 2,
 * intermediate 8, vocabulary 10): the initializers, MatMul + bias Add, the score scale before the Softmax,
 * LayerNorm's epsilon before a Sqrt, and an Erf. It is not meant to run, only to be mapped.
 *
 * <p>MatMul weight k (in the order query, key, value, attention output, intermediate, output) holds
 * {@code 100 k + (i * out + j)} at (i, j), so a test can tell which weight landed where and whether it was
 * transposed.
 */
public final class TinyOnnxBert {
  public static final String[] LINEARS = {"attention.self.query", "attention.self.key", "attention.self.value",
      "attention.output.dense", "intermediate.dense", "output.dense"};
  public static final int D = 4;
  public static final int F = 8;

  /**
   * What to vary from the export all-MiniLM-L6-v2 has.
   *
   * @param anonymous no node names, and the projections written value, query, key (so only where they lead
   *     says which is which)
   */
  public record Variant(boolean namedBiases, String extraOp, boolean fp16Query, boolean anonymous) {
    public static final Variant EXPORT = new Variant(true, null, false, false);
    public static final Variant NAMELESS = new Variant(false, null, false, true);
  }

  private TinyOnnxBert() {}

  public static byte[] model(Variant v) {
    OnnxBytes g = OnnxBytes.message().string(2, "tiny");
    List<OnnxBytes> nodes = new ArrayList<>();
    g.message(5, OnnxBytes.floatTensor("embeddings.word_embeddings.weight", new long[] {10, D}, fill(10 * D, 0)));
    g.message(5, OnnxBytes.floatTensor("embeddings.position_embeddings.weight", new long[] {16, D}, fill(16 * D, 0)));
    g.message(5, OnnxBytes.floatTensor("embeddings.token_type_embeddings.weight", new long[] {2, D}, fill(2 * D, 0)));
    g.message(5, OnnxBytes.message().varint(1, 1).varint(1, 16).varint(2, 7).string(8, "embeddings.position_ids")
        .bytes(9, new byte[16 * 8]));
    layerNorm(g, nodes, "embeddings.LayerNorm", "emb");
    String x = "emb_ln";
    String p = "encoder.layer.0.";
    int[] order = v.anonymous() ? new int[] {2, 0, 1, 3, 4, 5} : new int[] {0, 1, 2, 3, 4, 5};
    for (int k : order) {
      int in = k == 5 ? F : D;
      int out = k == 4 ? F : D;
      String w = "onnx::MatMul_" + (700 + k);
      float[] values = fill(in * out, 100 * k);
      if (k == 0 && v.fp16Query()) {
        g.message(5, OnnxBytes.message().varint(1, in).varint(1, out).varint(2, 10).string(8, w)
            .bytes(9, new byte[2 * in * out]));
      } else {
        g.message(5, OnnxBytes.floatTensor(w, new long[] {in, out}, values));
      }
      String bias = v.namedBiases() ? p + LINEARS[k] + ".bias" : "onnx::Add_" + (800 + k);
      g.message(5, OnnxBytes.floatTensor(bias, new long[] {out}, fill(out, 0)));
      String path = v.anonymous() ? "" : "/encoder/layer.0/" + LINEARS[k].replace('.', '/');
      nodes.add(OnnxBytes.node(path + (v.anonymous() ? "" : "/MatMul"), "MatMul", new String[] {x, w},
          new String[] {"mm" + k}));
      nodes.add(OnnxBytes.node(path + (v.anonymous() ? "" : "/Add"), "Add", new String[] {bias, "mm" + k},
          new String[] {"lin" + k}));
    }
    // the attention itself: scores = q k^T, context = pattern v
    nodes.add(OnnxBytes.node("", "Transpose", new String[] {"lin1"}, new String[] {"kT"}));
    nodes.add(OnnxBytes.node("", "MatMul", new String[] {"lin0", "kT"}, new String[] {"scores"}));
    nodes.add(OnnxBytes.node("", "MatMul", new String[] {"pattern", "lin2"}, new String[] {"context"}));
    nodes.add(constant("scale", (float) Math.sqrt(2)));
    nodes.add(OnnxBytes.node("div", "Div", new String[] {"scores", "scale"}, new String[] {"scaled"}));
    nodes.add(OnnxBytes.node("mask", "Add", new String[] {"scaled", "maskbias"}, new String[] {"masked"}));
    nodes.add(OnnxBytes.node("softmax", "Softmax", new String[] {"masked"}, new String[] {"pattern"}));
    nodes.add(OnnxBytes.node("erf", "Erf", new String[] {"lin4"}, new String[] {"erf"}));
    layerNorm(g, nodes, p + "attention.output.LayerNorm", "ln1");
    layerNorm(g, nodes, p + "output.LayerNorm", "ln2");
    if (v.extraOp() != null) {
      nodes.add(OnnxBytes.node("extra", v.extraOp(), new String[] {"lin5"}, new String[] {"extra"}));
    }
    nodes.forEach(n -> g.message(1, n));
    return OnnxBytes.model(g);
  }

  /** LayerNorm as torch.onnx decomposes it: the epsilon is the constant added to the variance before Sqrt. */
  private static void layerNorm(OnnxBytes g, List<OnnxBytes> nodes, String name, String x) {
    g.message(5, OnnxBytes.floatTensor(name + ".weight", new long[] {D}, fill(D, 1)));
    g.message(5, OnnxBytes.floatTensor(name + ".bias", new long[] {D}, fill(D, 0)));
    nodes.add(OnnxBytes.node(name + "/ReduceMean", "ReduceMean", new String[] {x + "_sq"}, new String[] {x + "_var"}));
    nodes.add(constant(x + "_eps", 1e-12f));
    nodes.add(OnnxBytes.node(name + "/Add", "Add", new String[] {x + "_var", x + "_eps"}, new String[] {x + "_ve"}));
    nodes.add(OnnxBytes.node(name + "/Sqrt", "Sqrt", new String[] {x + "_ve"}, new String[] {x + "_sd"}));
  }

  /** A Constant node whose {@code value} attribute (AttributeProto: name 1, t 5, type 20 = TENSOR) is a scalar. */
  static OnnxBytes constant(String output, float value) {
    OnnxBytes tensor = OnnxBytes.message().varint(2, 1).fixed32(4, value);
    OnnxBytes attribute = OnnxBytes.message().string(1, "value").message(5, tensor).varint(20, 4);
    return OnnxBytes.node(output, "Constant", new String[0], new String[] {output}).message(5, attribute);
  }

  static float[] fill(int n, float start) {
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = start + i;
    }
    return a;
  }
}
