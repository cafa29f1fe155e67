package io.headscope.analysis.export;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.analysis.distance.HeadDistances;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every ordered pair of different heads, 1-based, nine decimals. */
class HeadDistanceCsvTest {
  @Test
  void writesBothOrdersOfEveryPairOnceAndNoHeadWithItself() throws IOException {
    // 2 layers x 2 heads; divergence between heads a and b (layer-major) set to (a + b) / 100 + 0.000000001
    double[][] js = new double[4][4];
    for (int a = 0; a < 4; a++) {
      for (int b = 0; b < 4; b++) {
        js[a][b] = a == b ? 0 : (a + b) / 100.0 + 1e-9;
      }
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    HeadDistanceCsv.write(new HeadDistances("m", "text", 2, 2, js, 1, 0, List.of()), out);
    List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
    assertThat(lines.get(0)).isEqualTo("layer_a,head_a,layer_b,head_b,js_divergence");
    assertThat(lines).hasSize(1 + 4 * 3);
    // heads 0 = 1-1, 1 = 1-2, 2 = 2-1, 3 = 2-2; the first rows are 1-1 with the others
    assertThat(lines.get(1)).isEqualTo("1,1,1,2,0.010000001");
    assertThat(lines.get(2)).isEqualTo("1,1,2,1,0.020000001");
    assertThat(lines.get(3)).isEqualTo("1,1,2,2,0.030000001");
    assertThat(lines.get(4)).isEqualTo("1,2,1,1,0.010000001");
    assertThat(lines).last().isEqualTo("2,2,2,1,0.050000001");
    assertThat(lines).doesNotContain("1,1,1,1,0.000000000");
  }
}
