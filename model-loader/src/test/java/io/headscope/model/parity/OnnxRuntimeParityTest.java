package io.headscope.model.parity;

import static org.assertj.core.api.Assertions.assertThat;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.BertConfig;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.store.ProgressListener;
import io.headscope.model.testing.OnnxBytes;
import io.headscope.model.tokenizer.Encoding;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * all-MiniLM-L6-v2, converted from langchain4j's ONNX file into a HeadScope folder, against ONNX Runtime
 * running that same file: an engine that shares no code with ours (nor with PyTorch's kernels). The
 * Softmax outputs are added to the graph's outputs, so the attention maps are compared too.
 */
@Tag("full-model")
class OnnxRuntimeParityTest {
  private static final List<String> SENTENCES = List.of(
      "The quick brown fox jumps over the lazy dog.",
      "Attention heads in small sentence encoders still track syntax.",
      "She didn't know whether the bank by the river was open on Sundays!",
      "x");
  private static final double TOLERANCE = 1e-4;

  @TempDir static Path cache;
  static BertModel model;
  static ModelFiles files;
  static OrtEnvironment env;
  static OrtSession session;

  @BeforeAll
  static void load() throws Exception {
    files = new ModelRepository(cache).resolve("all-MiniLM-L6-v2", ProgressListener.NONE);
    model = BertModel.load(files);
    byte[] onnx;
    try (InputStream in = OnnxRuntimeParityTest.class.getClassLoader().getResourceAsStream("all-minilm-l6-v2.onnx")) {
      onnx = in.readAllBytes();
    }
    // protobuf merges a repeated message field: a second graph holding only outputs adds them to the first
    OnnxBytes extra = OnnxBytes.message();
    for (int l = 0; l < 6; l++) {
      extra.message(12, OnnxBytes.floatOutput("/encoder/layer." + l + "/attention/self/Softmax_output_0"));
    }
    byte[] withMaps = OnnxBytes.message().append(onnx).message(7, extra).toByteArray();
    env = OrtEnvironment.getEnvironment();
    try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
      options.setIntraOpNumThreads(1); // two cores shared with the rest of the suite
      // ORT's default level rewrites the graph (fused attention, approximations); the basic level keeps its maths
      options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.BASIC_OPT);
      session = env.createSession(withMaps, options);
    }
  }

  @AfterAll
  static void close() throws Exception {
    if (session != null) {
      session.close();
    }
    if (model != null) {
      model.close();
    }
  }

  @Test
  void configIsReadOffTheGraph() {
    BertConfig c = model.config();
    assertThat(c).isEqualTo(new BertConfig(30522, 384, 6, 12, 1536, "gelu", 512, 2, 1e-12, List.of()));
    assertThat(model.hasMaskedLmHead()).isFalse();
  }

  @Test
  void tokenizationIsTheShippedTokenizers() throws Exception {
    try (HuggingFaceTokenizer hf = HuggingFaceTokenizer.newInstance(files.tokenizer(),
        Map.of("padding", "false", "truncation", "false"))) {
      for (String s : SENTENCES) {
        assertThat(model.encode(s, null).ids()).as(s).containsExactly(hf.encode(s).getIds());
      }
    }
  }

  /**
   * Padding is masked alike: ONNX Runtime on a padded batch (attention_mask 0 on the pads, as the export's
   * callers do) and HeadScope's own padded batch give each sentence's real tokens the same states.
   */
  @Test
  void aPaddedBatchAgreesOnTheRealTokens() throws Exception {
    List<Encoding> batch = SENTENCES.stream().map(s -> model.encode(s, null)).toList();
    List<AttentionTrace> ours = model.trace(io.headscope.model.TraceRequest.of(batch));
    int width = batch.stream().mapToInt(Encoding::length).max().orElseThrow();
    long[][] ids = new long[batch.size()][width];
    long[][] mask = new long[batch.size()][width];
    long[][] types = new long[batch.size()][width];
    for (int b = 0; b < batch.size(); b++) {
      for (int t = 0; t < batch.get(b).length(); t++) {
        ids[b][t] = batch.get(b).ids()[t];
        mask[b][t] = 1;
      }
    }
    double max = 0;
    try (OnnxTensor a = OnnxTensor.createTensor(env, ids);
        OnnxTensor m = OnnxTensor.createTensor(env, mask);
        OnnxTensor c = OnnxTensor.createTensor(env, types);
        OrtSession.Result r = session.run(Map.of("input_ids", a, "attention_mask", m, "token_type_ids", c))) {
      float[][][] theirs = (float[][][]) r.get("last_hidden_state").orElseThrow().getValue();
      for (int b = 0; b < batch.size(); b++) {
        for (int t = 0; t < batch.get(b).length(); t++) {
          for (int k = 0; k < 384; k++) {
            max = Math.max(max, Math.abs(theirs[b][t][k] - ours.get(b).hiddenStates()[t][k]));
          }
        }
      }
    }
    System.out.printf("padded batch of %d (width %d): max |diff| hidden %.3g%n", batch.size(), width, max);
    assertThat(max).isLessThan(TOLERANCE);
  }

  @Test
  void lastHiddenStateAndAttentionAgreeWithOnnxRuntime() throws Exception {
    double maxHidden = 0;
    double maxAttention = 0;
    for (String s : SENTENCES) {
      Encoding e = model.encode(s, null);
      AttentionTrace ours = model.trace(e);
      int n = e.length();
      long[][] ids = {e.ids()};
      long[][] types = {e.segments()};
      long[][] mask = {new long[n]};
      java.util.Arrays.fill(mask[0], 1);
      Map<String, OnnxTensor> in = new HashMap<>();
      try (OnnxTensor a = OnnxTensor.createTensor(env, ids);
          OnnxTensor b = OnnxTensor.createTensor(env, mask);
          OnnxTensor c = OnnxTensor.createTensor(env, types)) {
        in.put("input_ids", a);
        in.put("attention_mask", b);
        in.put("token_type_ids", c);
        try (OrtSession.Result r = session.run(in)) {
          float[][] theirs = ((float[][][]) r.get("last_hidden_state").orElseThrow().getValue())[0];
          for (int t = 0; t < n; t++) {
            for (int k = 0; k < 384; k++) {
              maxHidden = Math.max(maxHidden, Math.abs(theirs[t][k] - ours.hiddenStates()[t][k]));
            }
          }
          for (int l = 0; l < 6; l++) {
            float[][][] maps = ((float[][][][]) r.get("/encoder/layer." + l + "/attention/self/Softmax_output_0")
                .orElseThrow().getValue())[0];
            for (int h = 0; h < 12; h++) {
              for (int q = 0; q < n; q++) {
                for (int k = 0; k < n; k++) {
                  maxAttention = Math.max(maxAttention, Math.abs(maps[h][q][k] - ours.attention()[l][h][q][k]));
                }
              }
            }
          }
        }
      }
    }
    System.out.printf("all-MiniLM-L6-v2 vs ONNX Runtime on %d sentences: max |diff| hidden %.3g, attention %.3g%n",
        SENTENCES.size(), maxHidden, maxAttention);
    assertThat(maxHidden).isLessThan(TOLERANCE);
    assertThat(maxAttention).isLessThan(TOLERANCE);
  }
}
