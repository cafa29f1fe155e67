package io.headscope.model.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The real all-MiniLM-L6-v2 export with every name a converter could lean on taken away (node names
 * emptied, biases renamed {@code onnx::Add_N}): the weights are then found by their place in the graph
 * alone, and must be exactly those the names give.
 */
@Tag("full-model") // reads the 90 MB file
class OnnxPositionMappingTest {

  @Test
  void positionAloneNamesEveryWeightAsTheNamesDo() throws Exception {
    OnnxGraph g;
    try (InputStream in = getClass().getClassLoader().getResourceAsStream("all-minilm-l6-v2.onnx")) {
      g = OnnxGraph.parse(in.readAllBytes(), "all-minilm-l6-v2.onnx");
    }
    Map<String, FloatTensor> byName = tensors(OnnxToHuggingFace.convert(g));
    Map<String, FloatTensor> byPlace = tensors(OnnxToHuggingFace.convert(anonymous(g)));
    assertThat(byPlace.keySet()).isEqualTo(byName.keySet()).hasSize(101);
    for (String name : byName.keySet()) {
      assertThat(byPlace.get(name).shape()).as(name).isEqualTo(byName.get(name).shape());
      assertThat(byPlace.get(name).data()).as(name).isEqualTo(byName.get(name).data());
    }
  }

  /** The graph with no node names and with every encoder bias renamed as an exporter might. */
  private static OnnxGraph anonymous(OnnxGraph g) {
    Map<String, String> renamed = new java.util.HashMap<>();
    List<OnnxGraph.Initializer> inits = new ArrayList<>();
    for (OnnxGraph.Initializer i : g.initializers()) {
      boolean linearBias = i.name().startsWith("encoder.") && i.name().endsWith(".bias") && !i.name().contains("LayerNorm");
      String name = linearBias ? "onnx::Add_" + renamed.size() : i.name();
      renamed.put(i.name(), name);
      inits.add(new OnnxGraph.Initializer(name, i.dims(), i.dataType(), i.data()));
    }
    List<OnnxGraph.Node> nodes = g.nodes().stream()
        .map(n -> new OnnxGraph.Node("", n.opType(), n.inputs().stream().map(x -> renamed.getOrDefault(x, x)).toList(),
            n.outputs(), n.floats(), n.ints()))
        .toList();
    assertThat(renamed.values()).filteredOn(n -> n.startsWith("onnx::Add_")).hasSize(36);
    return new OnnxGraph(g.source(), g.producer(), inits, nodes, g.inputs(), g.outputs());
  }

  private static Map<String, FloatTensor> tensors(OnnxToHuggingFace.Converted c) {
    return c.tensors().stream().collect(Collectors.toMap(FloatTensor::name, Function.identity()));
  }
}
