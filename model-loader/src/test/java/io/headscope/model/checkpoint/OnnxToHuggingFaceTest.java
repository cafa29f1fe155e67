package io.headscope.model.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.core.BertConfig;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.testing.TinyOnnxBert;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The mapping of an export's anonymous MatMul weights to Hugging Face names, on a hand-built graph. */
class OnnxToHuggingFaceTest {

  private static OnnxToHuggingFace.Converted convert(TinyOnnxBert.Variant v) {
    return OnnxToHuggingFace.convert(OnnxGraph.parse(TinyOnnxBert.model(v), "tiny.onnx"));
  }

  private static Map<String, FloatTensor> byName(OnnxToHuggingFace.Converted c) {
    return c.tensors().stream().collect(Collectors.toMap(FloatTensor::name, Function.identity()));
  }

  @Test
  void readsTheConfigOffTheGraph() {
    assertThat(convert(TinyOnnxBert.Variant.EXPORT).config())
        .isEqualTo(new BertConfig(10, 4, 1, 2, 8, "gelu", 16, 2, 1e-12, List.of()));
  }

  @Test
  void namesEachMatMulWeightAfterTheBiasItFeedsAndTransposesIt() {
    Map<String, FloatTensor> t = byName(convert(TinyOnnxBert.Variant.EXPORT));
    for (int k = 0; k < TinyOnnxBert.LINEARS.length; k++) {
      FloatTensor w = t.get("encoder.layer.0." + TinyOnnxBert.LINEARS[k] + ".weight");
      int in = k == 5 ? TinyOnnxBert.F : TinyOnnxBert.D;
      int out = k == 4 ? TinyOnnxBert.F : TinyOnnxBert.D;
      assertThat(w.shape()).containsExactly(out, in);
      // ONNX (i, j) = 100 k + i * out + j is PyTorch's (j, i)
      assertThat(w.data()[1 * in + 2]).as(TinyOnnxBert.LINEARS[k]).isEqualTo(100 * k + 2 * out + 1);
    }
    assertThat(t).doesNotContainKey("embeddings.position_ids").hasSize(5 + 16);
  }

  @Test
  void namesWeightAndBiasByTheNodePathWhenTheBiasIsAnonymousToo() {
    Map<String, FloatTensor> t = byName(convert(new TinyOnnxBert.Variant(false, null, false, false)));
    assertThat(t.get("encoder.layer.0.attention.self.key.weight").data()[0]).isEqualTo(100);
    assertThat(t.get("encoder.layer.0.intermediate.dense.bias").shape()).containsExactly(TinyOnnxBert.F);
  }

  @Test
  void withNoNamesAtAllQueryKeyAndValueAreToldApartByWhereTheyLead() {
    Map<String, FloatTensor> named = byName(convert(TinyOnnxBert.Variant.EXPORT));
    Map<String, FloatTensor> placed = byName(convert(TinyOnnxBert.Variant.NAMELESS));
    assertThat(placed.keySet()).isEqualTo(named.keySet());
    for (String n : named.keySet()) {
      assertThat(placed.get(n).data()).as(n).isEqualTo(named.get(n).data());
    }
  }

  @Test
  void refusesQuantizedFusedAndHalfPrecisionExportsByName() {
    assertThatThrownBy(() -> convert(new TinyOnnxBert.Variant(true, "DequantizeLinear", false, false)))
        .isInstanceOf(HeadScopeException.class)
        .hasMessage("tiny.onnx is not an ONNX BERT HeadScope can read: a quantized export (DequantizeLinear node extra);"
            + " export the model in float32.");
    assertThatThrownBy(() -> convert(new TinyOnnxBert.Variant(true, "SkipLayerNormalization", false, false)))
        .hasMessageContaining("fused SkipLayerNormalization node (extra)");
    assertThatThrownBy(() -> convert(new TinyOnnxBert.Variant(true, "Gemm", false, false)))
        .hasMessageContaining("dense layers as Gemm nodes");
    assertThatThrownBy(() -> convert(new TinyOnnxBert.Variant(true, null, true, false)))
        .hasMessage("tiny.onnx is not an ONNX BERT HeadScope can read: the weight onnx::MatMul_700 "
            + "(encoder.layer.0.attention.self.query.weight) has ONNX data type 10, not float32 (1).");
  }
}
