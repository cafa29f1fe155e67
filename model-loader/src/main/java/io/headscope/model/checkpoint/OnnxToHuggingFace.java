package io.headscope.model.checkpoint;

import io.headscope.model.core.BertConfig;
import io.headscope.model.core.HeadScopeException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns the graph of a BERT exported to ONNX into Hugging Face {@code BertModel} weights and a config read
 * off the graph itself.
 *
 * <p>Supported: PyTorch's {@code torch.onnx} export of a Hugging Face BERT in float32 (the export Xenova /
 * Optimum / sentence-transformers publish, e.g. all-MiniLM-L6-v2): every Linear is a {@code MatMul} with a
 * bias {@code Add}; LayerNorm is decomposed (ReduceMean, Pow, Sqrt; epsilon in the Add before the Sqrt) or a
 * {@code LayerNormalization} node; GELU is built on {@code Erf} (exact) or {@code Tanh} (approximation).
 * Embeddings, biases and LayerNorms keep their PyTorch names; the exporter often renames the MatMul weights
 * ({@code onnx::MatMul_787}) and stores them (in, out), the transpose of {@code Linear.weight}. Such a weight
 * is named after the bias its MatMul's output is added to ({@code ...query.bias} gives {@code ...query.weight}),
 * else after the MatMul node's own path ({@code /encoder/layer.0/attention/self/query/MatMul}), else after its
 * place in the graph (layer by layer, Q/K/V by where they lead); an anonymous bias is then the 1-D initializer
 * of the Add that follows that MatMul.
 *
 * <p>Refused, each with one line naming the file and what is missing: quantized exports, ONNX Runtime's fused
 * graphs ({@code Attention}, {@code SkipLayerNormalization}, ...), dense layers as {@code Gemm}, weights that
 * are not float32, and graphs without BERT's embeddings.
 */
public final class OnnxToHuggingFace {
  /** The weights and the shape and numerics of the exported model. */
  public record Converted(BertConfig config, List<FloatTensor> tensors) {}

  private static final Pattern BERT_NAME = Pattern.compile(
      "embeddings\\.(word_embeddings|position_embeddings|token_type_embeddings)\\.weight"
          + "|embeddings\\.LayerNorm\\.(weight|bias)"
          + "|encoder\\.layer\\.(\\d+)\\.(attention\\.self\\.(query|key|value)|attention\\.output\\.dense"
          + "|attention\\.output\\.LayerNorm|intermediate\\.dense|output\\.dense|output\\.LayerNorm)\\.(weight|bias)"
          + "|pooler\\.dense\\.(weight|bias)|classifier\\.(weight|bias)");
  private static final Pattern MATMUL_PATH = Pattern.compile("/?(?:bert/)?(.+)/MatMul(?:_\\d+)?");
  private static final Set<String> QUANTIZED =
      Set.of("DequantizeLinear", "QuantizeLinear", "DynamicQuantizeLinear", "MatMulInteger", "QLinearMatMul");
  private static final Set<String> FUSED = Set.of("Attention", "MultiHeadAttention", "EmbedLayerNormalization",
      "SkipLayerNormalization", "FastGelu", "BiasGelu", "Gemm");

  private final OnnxGraph graph;
  private final Map<String, OnnxGraph.Initializer> inits;
  private final Map<String, OnnxGraph.Node> producers = new HashMap<>();
  private final Map<String, List<OnnxGraph.Node>> consumers = new HashMap<>();

  private OnnxToHuggingFace(OnnxGraph graph) {
    this.graph = graph;
    this.inits = graph.initializersByName();
    for (OnnxGraph.Node n : graph.nodes()) {
      n.outputs().forEach(o -> producers.put(o, n));
      n.inputs().forEach(i -> consumers.computeIfAbsent(i, k -> new ArrayList<>()).add(n));
    }
  }

  public static Converted convert(OnnxGraph graph) {
    return new OnnxToHuggingFace(graph).convert();
  }

  private Converted convert() {
    for (OnnxGraph.Node n : graph.nodes()) {
      if (QUANTIZED.contains(n.opType())) {
        throw refuse("a quantized export (" + n.opType() + " node " + n.name() + "); export the model in float32");
      }
      if (FUSED.contains(n.opType())) {
        throw refuse(n.opType().equals("Gemm")
            ? "dense layers as Gemm nodes (" + n.name() + "); HeadScope maps MatMul + Add exports only"
            : "ONNX Runtime's fused " + n.opType() + " node (" + n.name() + "); export without graph optimisation");
      }
    }
    Map<String, FloatTensor> named = new LinkedHashMap<>();
    // 1. initializers that kept their PyTorch names
    Set<String> byName = new java.util.HashSet<>();
    for (OnnxGraph.Initializer i : graph.initializers()) {
      String hf = hfName(i.name());
      if (hf != null) {
        put(named, hf, i, false);
        byName.add(hf);
      }
    }
    // 2. every MatMul weight, by the bias it feeds, its node's path or its place; stored (in, out), so transposed
    for (OnnxGraph.Node m : graph.nodes()) {
      if (!m.opType().equals("MatMul") || m.inputs().size() != 2 || !inits.containsKey(m.inputs().get(1))) {
        continue;
      }
      OnnxGraph.Initializer w = inits.get(m.inputs().get(1));
      String hf = hfName(w.name());
      hf = hf != null ? hf : weightNameFromBias(m);
      hf = hf != null ? hf : weightNameFromPath(m);
      hf = hf != null ? hf : byPosition().get(m);
      if (hf == null || !hf.endsWith(".weight")) {
        throw refuse("the MatMul weight " + w.name() + " (node " + m.name() + ") is added to no named bias, its "
            + "node has no BERT path and its place in the graph is not a BERT layer's, so which weight it is cannot "
            + "be told");
      }
      if (byName.remove(hf)) {
        named.remove(hf); // taken untransposed in step 1, but a MatMul's weight is (in, out)
      }
      put(named, hf, w, true);
      String bias = hf.substring(0, hf.length() - ".weight".length()) + ".bias";
      anonymousBias(m).ifPresent(b -> put(named, bias, b, false));
    }
    BertConfig config = config(named);
    checkComplete(named, config);
    return new Converted(config, List.copyOf(named.values()));
  }

  private void put(Map<String, FloatTensor> named, String hf, OnnxGraph.Initializer i, boolean transpose) {
    if (i.data() == null) {
      throw refuse("the weight " + i.name() + " (" + hf + ") has ONNX data type " + i.dataType()
          + ", not float32 (1)");
    }
    if (named.containsKey(hf)) {
      throw refuse("two initializers map to " + hf + " (the second is " + i.name() + ")");
    }
    FloatTensor t = new FloatTensor(hf, i.dims(), i.data());
    if (transpose && i.dims().length != 2) {
      throw refuse("the MatMul weight " + i.name() + " is not 2-D: " + Arrays.toString(i.dims()));
    }
    named.put(hf, transpose ? t.transposed(hf) : t);
  }

  /** The Hugging Face BertModel name of an initializer, without a {@code bert.} prefix; null if none. */
  static String hfName(String onnxName) {
    String n = onnxName.startsWith("bert.") ? onnxName.substring("bert.".length()) : onnxName;
    return BERT_NAME.matcher(n).matches() ? n : null;
  }

  private Map<OnnxGraph.Node, String> byPosition;

  /**
   * Names every weight MatMul by its place in the graph, for exports that kept no names at all. Nodes are
   * in topological order (ONNX requires it), so layer l's six weight MatMuls are the l-th group of six: the
   * three reading the same input are Q, K and V, told apart by where they lead (V into the MatMul after the
   * Softmax, Q and K into the score MatMul as its left and right operand); then the attention output, the
   * intermediate and the output dense. A seventh after the last layer is the pooler.
   */
  private Map<OnnxGraph.Node, String> byPosition() {
    if (byPosition != null) {
      return byPosition;
    }
    byPosition = new HashMap<>();
    List<OnnxGraph.Node> weights = graph.nodes().stream()
        .filter(n -> n.opType().equals("MatMul") && n.inputs().size() == 2 && inits.containsKey(n.inputs().get(1)))
        .toList();
    long layers = graph.nodes().stream().filter(n -> n.opType().equals("Softmax")).count();
    if (layers == 0 || weights.size() != 6 * layers && weights.size() != 6 * layers + 1) {
      return byPosition; // not BERT's layout: nothing is named, and the caller refuses
    }
    for (int l = 0; l < layers; l++) {
      String p = "encoder.layer." + l + ".";
      List<OnnxGraph.Node> group = weights.subList(6 * l, 6 * l + 6);
      for (OnnxGraph.Node qkv : group.subList(0, 3)) {
        String role = attentionRole(qkv);
        if (role == null || !qkv.inputs().get(0).equals(group.get(0).inputs().get(0))) {
          return byPosition = new HashMap<>();
        }
        byPosition.put(qkv, p + "attention.self." + role + ".weight");
      }
      byPosition.put(group.get(3), p + "attention.output.dense.weight");
      byPosition.put(group.get(4), p + "intermediate.dense.weight");
      byPosition.put(group.get(5), p + "output.dense.weight");
    }
    if (weights.size() == 6 * layers + 1) {
      byPosition.put(weights.get(weights.size() - 1), "pooler.dense.weight");
    }
    return byPosition;
  }

  /** query, key or value: where a projection's output meets the other attention MatMuls; null if nowhere. */
  private String attentionRole(OnnxGraph.Node projection) {
    List<String> frontier = projection.outputs();
    for (int depth = 0; depth < 8 && !frontier.isEmpty(); depth++) {
      List<String> next = new ArrayList<>();
      for (String tensor : frontier) {
        for (OnnxGraph.Node c : consumers.getOrDefault(tensor, List.of())) {
          if (c.opType().equals("Shape")) {
            continue; // carries the shape, not the values: its path leads to Reshapes of other tensors
          }
          if (!c.opType().equals("MatMul")) {
            next.addAll(c.outputs());
            continue;
          }
          OnnxGraph.Node left = producers.get(c.inputs().get(0));
          boolean afterSoftmax = left != null && left.opType().equals("Softmax");
          int side = c.inputs().indexOf(tensor);
          return afterSoftmax ? (side == 1 ? "value" : null) : side == 0 ? "query" : "key";
        }
      }
      frontier = next;
    }
    return null;
  }

  /** {@code X.weight} when the MatMul's output goes into an Add with the initializer {@code X.bias}. */
  private String weightNameFromBias(OnnxGraph.Node matMul) {
    for (OnnxGraph.Node add : consumers.getOrDefault(matMul.outputs().get(0), List.of())) {
      if (!add.opType().equals("Add")) {
        continue;
      }
      for (String in : add.inputs()) {
        String hf = inits.containsKey(in) ? hfName(in) : null;
        if (hf != null && hf.endsWith(".bias")) {
          return hf.substring(0, hf.length() - ".bias".length()) + ".weight";
        }
      }
    }
    return null;
  }

  /** The bias of a MatMul named by its path when the exporter renamed the bias too: the Add's 1-D initializer. */
  private java.util.Optional<OnnxGraph.Initializer> anonymousBias(OnnxGraph.Node matMul) {
    for (OnnxGraph.Node add : consumers.getOrDefault(matMul.outputs().get(0), List.of())) {
      if (add.opType().equals("Add")) {
        for (String in : add.inputs()) {
          OnnxGraph.Initializer b = inits.get(in);
          if (b != null && hfName(in) == null && b.dims().length == 1) {
            return java.util.Optional.of(b);
          }
        }
      }
    }
    return java.util.Optional.empty();
  }

  /** {@code encoder.layer.0.attention.self.query.weight} from the node {@code /encoder/layer.0/attention/self/query/MatMul}. */
  private static String weightNameFromPath(OnnxGraph.Node matMul) {
    Matcher m = MATMUL_PATH.matcher(matMul.name());
    return m.matches() ? hfName(m.group(1).replace('/', '.') + ".weight") : null;
  }

  // --- the config, read off the graph ------------------------------------------------------------

  private BertConfig config(Map<String, FloatTensor> named) {
    long[] words = shape(named, "embeddings.word_embeddings.weight");
    long[] positions = shape(named, "embeddings.position_embeddings.weight");
    long[] types = shape(named, "embeddings.token_type_embeddings.weight");
    int layers = 0;
    Pattern layer = Pattern.compile("encoder\\.layer\\.(\\d+)\\..*");
    for (String n : named.keySet()) {
      Matcher m = layer.matcher(n);
      if (m.matches()) {
        layers = Math.max(layers, Integer.parseInt(m.group(1)) + 1);
      }
    }
    if (layers == 0) {
      throw refuse("no encoder layer (no initializer encoder.layer.N.*)");
    }
    int hidden = (int) words[1];
    int intermediate = (int) shape(named, "encoder.layer.0.intermediate.dense.bias")[0];
    int headSize = headSize();
    if (hidden % headSize != 0) {
      throw refuse("the attention scale says head size " + headSize + ", which does not divide hidden size " + hidden);
    }
    long softmaxes = graph.nodes().stream().filter(n -> n.opType().equals("Softmax")).count();
    if (softmaxes != layers) {
      throw refuse(layers + " encoder layers but " + softmaxes + " Softmax nodes (one attention per layer expected)");
    }
    return new BertConfig((int) words[0], hidden, layers, hidden / headSize, intermediate, activation(),
        (int) positions[0], (int) types[0], layerNormEps(), List.of());
  }

  private long[] shape(Map<String, FloatTensor> named, String name) {
    FloatTensor t = named.get(name);
    if (t == null) {
      throw refuse("no initializer " + name + " (nor bert." + name + ")");
    }
    return t.shape();
  }

  /**
   * The head size from the attention scores' scale: {@code QK^T / sqrt(dh)} is exported as a Div by
   * {@code sqrt(dh)} or a Mul by {@code 1/sqrt(dh)} between the score MatMul and the Softmax. The head count
   * is nowhere else in the weights: Q, K and V are (d, d) whatever it is.
   */
  private int headSize() {
    OnnxGraph.Node softmax = graph.nodes().stream().filter(n -> n.opType().equals("Softmax")).findFirst()
        .orElseThrow(() -> refuse("no Softmax node, so no attention"));
    List<OnnxGraph.Node> frontier = new ArrayList<>(List.of(softmax));
    for (int depth = 0; depth < 4 && !frontier.isEmpty(); depth++) {
      List<OnnxGraph.Node> next = new ArrayList<>();
      for (OnnxGraph.Node n : frontier) {
        for (String in : n.inputs()) {
          OnnxGraph.Node p = producers.get(in);
          if (p == null || p.opType().equals("MatMul")) {
            continue;
          }
          Float c = p.inputs().size() == 2 ? scalar(p.inputs().get(1)) : null;
          if (c != null && (p.opType().equals("Div") || p.opType().equals("Mul"))) {
            double dh = p.opType().equals("Div") ? (double) c * c : 1 / ((double) c * c);
            if (Math.abs(dh - Math.rint(dh)) < 1e-3 * dh && Math.rint(dh) >= 1) {
              return (int) Math.rint(dh);
            }
          }
          next.add(p);
        }
      }
      frontier = next;
    }
    throw refuse("no 1/sqrt(head size) scale before the first Softmax (" + softmax.name() + "), so the number "
        + "of heads cannot be told");
  }

  /** GELU from what it is built of: Erf is the exact one, Tanh Google's approximation. */
  private String activation() {
    Set<String> ops = new java.util.HashSet<>();
    graph.nodes().forEach(n -> ops.add(n.opType()));
    if (ops.contains("Erf")) {
      return "gelu";
    }
    if (ops.contains("Tanh")) {
      return "gelu_new";
    }
    throw refuse("no Erf or Tanh node, so no GELU this reader knows (" + (ops.contains("Gelu") ? "a Gelu node" : "none")
        + " found)");
  }

  /** LayerNorm's epsilon: a LayerNormalization's attribute, or the constant added to the variance before Sqrt. */
  private double layerNormEps() {
    List<Float> found = new ArrayList<>();
    for (OnnxGraph.Node n : graph.nodes()) {
      if (n.opType().equals("LayerNormalization")) {
        float[] eps = n.floats().get("epsilon");
        found.add(eps == null ? 1e-5f : eps[0]); // the operator's default
      } else if (n.opType().equals("Sqrt")) {
        OnnxGraph.Node add = producers.get(n.inputs().get(0));
        if (add != null && add.opType().equals("Add")) {
          for (String in : add.inputs()) {
            OnnxGraph.Node p = producers.get(in);
            Float c = scalar(in);
            if (c != null && (p == null || !p.opType().equals("ReduceMean"))) {
              found.add(c);
            }
          }
        }
      }
    }
    if (found.isEmpty()) {
      throw refuse("no LayerNorm epsilon (neither a LayerNormalization node nor an Add before a Sqrt)");
    }
    for (float f : found) {
      if (f != found.get(0)) {
        throw refuse("LayerNorms with different epsilons (" + found.get(0) + " and " + f + ")");
      }
    }
    // the file holds a float32; 1e-12 is stored as 9.9999998e-13: give back the decimal the exporter was given
    return Double.parseDouble(Float.toString(found.get(0)));
  }

  /** The value of a one-element float tensor: a Constant node's output or an initializer; else null. */
  private Float scalar(String tensor) {
    float[] v = null;
    OnnxGraph.Node p = producers.get(tensor);
    if (p != null && p.opType().equals("Constant")) {
      v = p.floats().get("value");
      v = v != null ? v : p.floats().get("value_float");
    } else if (inits.containsKey(tensor)) {
      v = inits.get(tensor).data();
    }
    return v != null && v.length == 1 ? v[0] : null;
  }

  private void checkComplete(Map<String, FloatTensor> named, BertConfig c) {
    int d = c.hiddenSize();
    int f = c.intermediateSize();
    Map<String, long[]> expected = new LinkedHashMap<>();
    expected.put("embeddings.LayerNorm.weight", new long[] {d});
    expected.put("embeddings.LayerNorm.bias", new long[] {d});
    for (int l = 0; l < c.numHiddenLayers(); l++) {
      String p = "encoder.layer." + l + ".";
      for (String qkv : List.of("query", "key", "value")) {
        expected.put(p + "attention.self." + qkv + ".weight", new long[] {d, d});
        expected.put(p + "attention.self." + qkv + ".bias", new long[] {d});
      }
      expected.put(p + "attention.output.dense.weight", new long[] {d, d});
      expected.put(p + "attention.output.dense.bias", new long[] {d});
      expected.put(p + "intermediate.dense.weight", new long[] {f, d});
      expected.put(p + "intermediate.dense.bias", new long[] {f});
      expected.put(p + "output.dense.weight", new long[] {d, f});
      expected.put(p + "output.dense.bias", new long[] {d});
      for (String ln : List.of("attention.output.LayerNorm.", "output.LayerNorm.")) {
        expected.put(p + ln + "weight", new long[] {d});
        expected.put(p + ln + "bias", new long[] {d});
      }
    }
    for (Map.Entry<String, long[]> e : expected.entrySet()) {
      FloatTensor t = named.get(e.getKey());
      if (t == null) {
        throw refuse("no weight " + e.getKey() + " (looked for by name, by the bias its MatMul feeds and by node path)");
      }
      if (!Arrays.equals(t.shape(), e.getValue())) {
        throw refuse(e.getKey() + " has shape " + Arrays.toString(t.shape()) + " (after transposing a MatMul weight), "
            + "not " + Arrays.toString(e.getValue()));
      }
    }
  }

  private HeadScopeException refuse(String what) {
    return new HeadScopeException(graph.source() + " is not an ONNX BERT HeadScope can read: " + what + ".");
  }
}
