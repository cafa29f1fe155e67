package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code attention --format npz} read back by NumPy itself ({@code np.load}, pickles refused), every array
 * compared with the JSON of the same input: the same tokens and ids, and the same float32 numbers to the
 * bit. A machine without NumPy fails here, saying what to install, rather than passing untested.
 */
class AttentionNpzNumpyTest extends OnTinyModel {
  private static final String CHECK = String.join("\n",
      "import json, sys",
      "import numpy as np",
      "z = np.load(sys.argv[1])",
      "j = json.load(open(sys.argv[2], encoding='utf-8'))",
      "def same(name, got, want):",
      "    if got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want):",
      "        sys.exit(name + ': ' + str(got.dtype) + str(got.shape) + ' != ' + str(want.dtype) + str(want.shape))",
      "words = 'words' in j",
      "same('tokens', z['tokens'], np.array(j['tokens']))",
      "same('ids', z['ids'], np.array(j['ids'], dtype=np.int32))",
      "same('attention', z['attention'], np.array(j['attention'], dtype=np.float32))",
      "same('value_norms', z['value_norms'], np.array(j['valueNorms'], dtype=np.float32))",
      "same('layer_norms', z['layer_norms'], np.array(j['layerNorms'], dtype=np.float32))",
      "if words:",
      "    same('words', z['words'], np.array(j['words']))",
      "    same('word_of_token', z['word_of_token'], np.array(j['wordOfToken'], dtype=np.int32))",
      "expected = {'tokens', 'ids', 'attention', 'value_norms', 'layer_norms'} | ({'words', 'word_of_token'} if words else set())",
      "if set(z.files) != expected:",
      "    sys.exit('arrays: ' + str(sorted(z.files)))",
      "print('same', sorted(z.files))");

  /** python3 on the path, else /usr/bin/python3: the first that imports numpy (as the Python client's launcher looks). */
  static String pythonWithNumpy() throws IOException, InterruptedException {
    for (String python : List.of("python3", "/usr/bin/python3")) {
      try {
        Process p = new ProcessBuilder(python, "-c", "import numpy").redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        if (p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0) {
          return python;
        }
      } catch (IOException notThere) {
        // try the next
      }
    }
    throw new AssertionError("No python3 with NumPy (tried python3, /usr/bin/python3): this test reads the .npz "
        + "with NumPy itself. Install it: apt-get install python3-numpy (or pip install numpy).");
  }

  private void check(String text, String... extra) throws Exception {
    Path npz = dir.resolve("a" + System.nanoTime() + ".npz");
    Path json = dir.resolve("a" + System.nanoTime() + ".json");
    List<String> common = new java.util.ArrayList<>(List.of("attention", "--model", model.toString(), "--text", text,
        "--layer-norms"));
    common.addAll(List.of(extra));
    List<String> asNpz = new java.util.ArrayList<>(common);
    asNpz.addAll(List.of("--format", "npz", "--out", npz.toString()));
    CliHarness.Result written = CliHarness.run(asNpz.toArray(String[]::new));
    assertThat(written.exit()).as(written.err()).isZero();
    CliHarness.Result printed = CliHarness.run(common.toArray(String[]::new));
    assertThat(printed.exit()).as(printed.err()).isZero();
    Files.writeString(json, printed.out(), StandardCharsets.UTF_8);

    Process p = new ProcessBuilder(pythonWithNumpy(), "-c", CHECK, npz.toString(), json.toString())
        .redirectErrorStream(true).start();
    String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(said).isZero();
    assertThat(said).startsWith("same");
  }

  @Test
  void numpyReadsTheSameTokensIdsAndFloat32MapsAsTheJson() throws Exception {
    check("the cat sat on the mat .");
  }

  @Test
  void numpyReadsTheWordLevelMapsAndUnicodeTokens() throws Exception {
    check("the café ☕ 𝔘 sat on the housecat", "--words");
  }

  @Test
  void npzOnStandardOutputIsRefusedWithoutOut() {
    CliHarness.Result r = CliHarness.run("attention", "--model", model.toString(), "--text", "the cat", "--format", "npz");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).contains("--format npz is binary: give --out");
  }
}
