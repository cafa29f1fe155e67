package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.testing.TinyBert;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** A real Ctrl-C (SIGINT) to a real {@code headscope ablate} process in the middle of a corpus. */
class CtrlCTest {
  @TempDir Path dir;

  @Test
  @EnabledOnOs({OS.LINUX, OS.MAC})
  void ctrlCDuringAnAblationLeavesNoFileAndNoTemporaryFile() throws Exception {
    Path model = dir.resolve("tiny");
    TinyBert.create(2, 2, 3).writeTo(model);
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 20000; i++) {
      lines.add("the cat sat on the mat and the dog ran to the house .");
    }
    Path corpus = Files.write(dir.resolve("corpus.txt"), lines);
    Path outDir = Files.createDirectory(dir.resolve("out"));
    Path out = outDir.resolve("ablation.csv");

    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    Process p = new ProcessBuilder(java, "-Xmx512m", "-cp", cp, "io.headscope.app.Launcher", "ablate",
        "--model", model.toString(), "--corpus", corpus.toString(), "--out", out.toString())
        .redirectErrorStream(true).start();
    StringBuilder seen = new StringBuilder();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        seen.append(line).append('\n');
        if (line.startsWith("headscope: ablate ")) { // the first progress line: the sweep is running
          new ProcessBuilder("kill", "-INT", String.valueOf(p.pid())).start().waitFor();
          break;
        }
      }
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).as(seen.toString()).isTrue();
      r.lines().forEach(l -> seen.append(l).append('\n'));
    } finally {
      p.destroyForcibly();
    }
    assertThat(seen.toString()).contains("headscope: ablate ");
    assertThat(seen.toString()).contains("headscope: cancelled; nothing was written.");
    assertThat(p.exitValue()).as(seen.toString()).isEqualTo(130);
    try (var files = Files.list(outDir)) {
      assertThat(files).as("no output and no temporary file").isEmpty();
    }
  }
}
