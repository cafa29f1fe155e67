package io.headscope.model.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.core.HeadScopeException;
import io.headscope.model.testing.OnnxBytes;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The protobuf reader on ONNX bytes written by hand (with {@link OnnxBytes}, not the reader's own code). */
class OnnxGraphTest {

  private static byte[] tinyModel() {
    OnnxBytes floatData = OnnxBytes.message().bytes(1, new byte[] {3}) // dims packed: [3]
        .varint(2, 1).string(8, "b")
        .fixed32(4, 0.5f).fixed32(4, -1.25f).fixed32(4, 3e-7f); // float_data, one field per value
    OnnxBytes ints = OnnxBytes.message().varint(1, 1).varint(1, 2).varint(2, 7).string(8, "position_ids")
        .bytes(9, new byte[16]);
    OnnxBytes attribute = OnnxBytes.message().string(1, "value")
        .message(5, OnnxBytes.message().varint(2, 1).fixed32(4, 1e-12f)).varint(20, 4);
    OnnxBytes graph = OnnxBytes.message().string(2, "g")
        .message(1, OnnxBytes.node("mm", "MatMul", new String[] {"x", "w"}, new String[] {"y"}))
        .message(1, OnnxBytes.node("eps", "Constant", new String[0], new String[] {"e"}).message(5, attribute))
        .message(5, OnnxBytes.floatTensor("w", new long[] {2, 3}, new float[] {1, 2, 3, 4, 5, 6})) // dims unpacked
        .message(5, floatData)
        .message(5, ints)
        .message(11, OnnxBytes.message().string(1, "x"))
        .message(12, OnnxBytes.message().string(1, "y"));
    return OnnxBytes.model(graph);
  }

  @Test
  void readsNamesDimsAndValuesOfRawAndFloatDataInitializers() {
    OnnxGraph g = OnnxGraph.parse(tinyModel(), "tiny.onnx");
    assertThat(g.producer()).isEqualTo("hand");
    assertThat(g.initializers()).extracting(OnnxGraph.Initializer::name).containsExactly("w", "b", "position_ids");
    OnnxGraph.Initializer w = g.initializersByName().get("w");
    assertThat(w.dims()).containsExactly(2, 3);
    assertThat(w.data()).containsExactly(1, 2, 3, 4, 5, 6);
    OnnxGraph.Initializer b = g.initializersByName().get("b");
    assertThat(b.dims()).containsExactly(3);
    assertThat(b.data()).containsExactly(0.5f, -1.25f, 3e-7f);
    OnnxGraph.Initializer ids = g.initializersByName().get("position_ids");
    assertThat(ids.dataType()).isEqualTo(7);
    assertThat(ids.dims()).containsExactly(1, 2);
    assertThat(ids.data()).isNull(); // kept by name and shape only: not a weight
  }

  @Test
  void readsNodesAndConstantValues() {
    OnnxGraph g = OnnxGraph.parse(tinyModel(), "tiny.onnx");
    assertThat(g.nodes()).extracting(OnnxGraph.Node::opType).containsExactly("MatMul", "Constant");
    assertThat(g.nodes().get(0).inputs()).containsExactly("x", "w");
    assertThat(g.nodes().get(0).outputs()).containsExactly("y");
    assertThat(g.nodes().get(1).floats().get("value")).containsExactly(1e-12f);
    assertThat(g.inputs()).containsExactly("x");
    assertThat(g.outputs()).containsExactly("y");
  }

  @Test
  void refusesEveryTruncationWithOneLine() {
    byte[] full = tinyModel();
    for (int cut = 0; cut < full.length; cut++) {
      byte[] part = Arrays.copyOf(full, cut);
      assertThatThrownBy(() -> OnnxGraph.parse(part, "cut.onnx")).as("cut at %d", cut)
          .isInstanceOf(HeadScopeException.class)
          .hasMessageStartingWith("cut.onnx ")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }
  }

  @Test
  void refusesExternalDataNamingTheTensor() {
    OnnxBytes external = OnnxBytes.message().varint(1, 4).varint(2, 1).string(8, "big.weight")
        .message(13, OnnxBytes.message().string(1, "location").string(2, "weights.bin")).varint(14, 1);
    byte[] model = OnnxBytes.model(OnnxBytes.message().message(5, external));
    assertThatThrownBy(() -> OnnxGraph.parse(model, "ext.onnx"))
        .isInstanceOf(HeadScopeException.class)
        .hasMessage("ext.onnx: tensor big.weight keeps its data in an external file (external_data); HeadScope reads "
            + "ONNX files with every weight inside.");
  }

  @Test
  void refusesRawDataOfTheWrongLength() {
    OnnxBytes bad = OnnxBytes.message().varint(1, 2).varint(2, 1).string(8, "short").bytes(9, new byte[7]);
    byte[] model = OnnxBytes.model(OnnxBytes.message().message(5, bad));
    assertThatThrownBy(() -> OnnxGraph.parse(model, "bad.onnx"))
        .hasMessage("bad.onnx is not a complete ONNX file (truncated or corrupt): tensor short of shape [2] has 7 bytes "
            + "of data, not 8.");
  }
}
