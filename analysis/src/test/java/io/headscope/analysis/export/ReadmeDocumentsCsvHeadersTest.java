package io.headscope.analysis.export;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The README documents the CSV headers exactly as the writers produce them, column by column. */
class ReadmeDocumentsCsvHeadersTest {
  private static String readme;

  @BeforeAll
  static void readReadme() throws IOException {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !(Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("analysis")))) {
      dir = dir.getParent();
    }
    assertThat(dir).as("the project root above " + Path.of("").toAbsolutePath()).isNotNull();
    readme = Files.readString(dir.resolve("README.md"));
  }

  @Test
  void classifyHeaderLineIsTheWritersFirstLine() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    HeadCsv.write(List.of(), out);
    String header = out.toString(StandardCharsets.UTF_8).strip();
    assertThat(readme).contains("\n    " + header + "\n");
    for (String column : HeadCsv.HEADER) {
      assertThat(readme).as("a row for " + column).containsPattern("\\n\\| [^\\n]*`" + column + "`[^\\n]* \\| ");
    }
  }

  @Test
  void tokenTypesHeaderLineIsTheWritersFirstLine() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    TokenTypeCsv.write(List.of(), 0, out);
    String header = out.toString(StandardCharsets.UTF_8).strip();
    assertThat(readme).contains("\n    " + header + "\n");
    ByteArrayOutputStream causal = new ByteArrayOutputStream();
    TokenTypeCsv.writeCausal(List.of(), 0, causal);
    assertThat(readme).contains("\n    " + causal.toString(StandardCharsets.UTF_8).strip() + "\n");
  }

  @Test
  void headDistancesHeaderLineIsTheWritersFirstLine() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    double[][] none = new double[0][0];
    HeadDistanceCsv.write(new io.headscope.analysis.distance.HeadDistances("m", "text", 0, 0, none, 0, 0, List.of()), out);
    String header = out.toString(StandardCharsets.UTF_8).strip();
    assertThat(readme).contains("\n    " + header + "\n");
  }

  @Test
  void compareHeaderLineIsTheWritersFirstLine() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    io.headscope.analysis.compare.CompareCsv.write(new io.headscope.analysis.compare.ComparisonResult("a", "b",
        "text", 0, 0, List.of(), List.of(), 0, 0, List.of()), out);
    String header = out.toString(StandardCharsets.UTF_8).strip();
    assertThat(readme).contains("\n    " + header + "\n");
  }
}
