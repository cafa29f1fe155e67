package io.headscope.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchJsonTest {
  @TempDir Path dir;

  @AfterEach
  void forget() {
    BenchJson.reset();
  }

  @Test
  void theFiguresAreAnArrayOfNameMedianPeerPeerMedianAndRatio() throws Exception {
    Path out = dir.resolve("bench.json");
    Files.writeString(out, "old run"); // replaced whole
    String[] rest = BenchJson.init(new String[] {"5", "--json", out.toString(), "corpus.txt"});
    assertThat(rest).containsExactly("5", "corpus.txt");
    BenchJson.add("one input, 16 tokens", 40.0, "TensorFlow", 160.0);
    BenchJson.add("first start", 9000.0);
    BenchJson.add("naive sweep", Double.NaN);
    BenchJson.write();
    JsonNode a = new ObjectMapper().readTree(out.toFile());
    assertThat(a.isArray()).isTrue();
    assertThat(a).hasSize(3);
    JsonNode f = a.get(0);
    assertThat(f.fieldNames()).toIterable().containsExactly("name", "median_ms", "peer", "peer_median_ms", "ratio");
    assertThat(f.get("name").asText()).isEqualTo("one input, 16 tokens");
    assertThat(f.get("median_ms").asDouble()).isEqualTo(40.0);
    assertThat(f.get("peer").asText()).isEqualTo("TensorFlow");
    assertThat(f.get("peer_median_ms").asDouble()).isEqualTo(160.0);
    assertThat(f.get("ratio").asDouble()).isEqualTo(0.25);
    assertThat(a.get(1).get("peer").isNull()).isTrue();
    assertThat(a.get(1).get("ratio").isNull()).isTrue();
    assertThat(a.get(2).get("median_ms").isNull()).as("JSON has no NaN").isTrue();
    try (var files = Files.list(dir)) {
      assertThat(files).as("no temporary file left").containsExactly(out);
    }
  }

  @Test
  void withoutJsonNothingIsWritten() {
    assertThat(BenchJson.init(new String[] {"3"})).containsExactly("3");
    BenchJson.add("x", 1);
    BenchJson.write();
    assertThat(dir).isEmptyDirectory();
  }
}
