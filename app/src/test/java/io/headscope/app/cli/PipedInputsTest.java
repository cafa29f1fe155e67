package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * Inputs given as pipes ({@code --corpus <(...)}, {@code --train /dev/stdin}): a named pipe here, written once
 * by another thread as a shell would. A pipe exists though it is no regular file, and a run that reads its
 * input twice (the labels, then the lines) must not find it empty the second time.
 */
@EnabledOnOs(OS.LINUX)
class PipedInputsTest extends OnTinyModel {
  @Test
  void anAblationReadsItsCorpusFromAPipe() throws Exception {
    Path pipe = fifo("corpus", "the cat sat on the mat .\nthe dog ran .\n");
    Path out = dir.resolve("ablation.csv");
    CliHarness.Result r = CliHarness.run("ablate", "--model", model.toString(), "--corpus", pipe.toString(),
        "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.err()).doesNotContain("does not exist");
    assertThat(Files.readAllLines(out).get(0)).startsWith("layer,head,");
  }

  @Test
  void aFineTuningReadsItsTrainingFileFromAPipeThoughItReadsItTwice() throws Exception {
    StringBuilder lines = new StringBuilder();
    for (int i = 0; i < 4; i++) {
      lines.append("the cat sat on the mat .\tcat\n").append("the car ran in the city .\tcar\n");
    }
    Path pipe = fifo("train", lines.toString());
    Path out = dir.resolve("tuned");
    CliHarness.Result r = CliHarness.run("finetune", "--model", model.toString(), "--train", pipe.toString(),
        "--epochs", "1", "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.err()).contains("on 8 input(s), labels car, cat");
    assertThat(out.resolve("config.json")).exists();
  }

  /** A named pipe that a thread fills once with {@code content}, as a shell's process substitution does. */
  private static Path fifo(String name, String content) throws Exception {
    Path p = dir.resolve(name + ".fifo");
    Process mk = new ProcessBuilder("mkfifo", p.toString()).redirectErrorStream(true).start();
    assumeTrue(mk.waitFor() == 0, "mkfifo is not available");
    Thread writer = new Thread(() -> {
      try {
        Files.writeString(p, content, StandardCharsets.UTF_8); // blocks until the run opens it
      } catch (Exception ignored) {
        // the test fails on what the run read
      }
    }, "pipe-writer");
    writer.setDaemon(true);
    writer.start();
    return p;
  }
}
