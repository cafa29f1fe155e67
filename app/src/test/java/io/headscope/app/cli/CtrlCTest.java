package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.testing.ChildProcesses;
import io.headscope.model.testing.TinyBert;
import java.io.BufferedReader;
import java.io.IOException;
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

/**
 * A real Ctrl-C (SIGINT) and a real {@code kill} (SIGTERM) to a real {@code headscope ablate} process in the
 * middle of a corpus.
 *
 * <p>The child starts with SIGINT at its default action, as {@code ./headscope} starts the JVM, whatever this
 * JVM inherited: a test run started as a background job of a script ({@code mvn verify &}) has SIGINT ignored,
 * every child inherits that, and a JVM that starts with SIGINT ignored never installs its handler. A shell
 * cannot undo an ignore it inherited ({@code sh -c 'trap - INT; exec java ...'} keeps it, as POSIX says for
 * non-interactive shells), nor can {@code setsid}; {@code env --default-signal=INT} (GNU coreutils 8.31+) or
 * perl can.
 */
class CtrlCTest {
  @TempDir Path dir;

  @Test
  @EnabledOnOs({OS.LINUX, OS.MAC})
  void ctrlCDuringAnAblationLeavesNoFileAndNoTemporaryFileAndExits130() throws Exception {
    Interrupted run = interruptAblation("INT");
    assertThat(run.exit()).as(run.output()).isEqualTo(130);
  }

  @Test
  @EnabledOnOs({OS.LINUX, OS.MAC})
  void sigtermDuringAnAblationCancelsTheSameWayAndExits143() throws Exception {
    Interrupted run = interruptAblation("TERM");
    assertThat(run.exit()).as(run.output()).isEqualTo(143);
  }

  @Test
  @EnabledOnOs({OS.LINUX, OS.MAC})
  void ctrlCDuringPruningLeavesNoFileAndExits130() throws Exception {
    Path model = dir.resolve("classifier");
    TinyBert.create(2, 2, 3).withClassifier("neg", "pos").writeTo(model);
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 20000; i++) {
      lines.add("the cat sat on the mat and the dog ran to the house .\t" + (i % 2 == 0 ? "pos" : "neg"));
    }
    Path corpus = Files.write(dir.resolve("labelled.tsv"), lines);
    Interrupted run = interrupt("INT", "prune", List.of("--model", model.toString(), "--corpus", corpus.toString()));
    assertThat(run.exit()).as(run.output()).isEqualTo(130);
  }

  @Test
  @EnabledOnOs({OS.LINUX, OS.MAC})
  void ctrlCDuringFineTuningKeepsTheLastFinishedEpochsFolderAndSaysSo() throws Exception {
    Path model = dir.resolve("tiny");
    TinyBert.create(2, 2, 3).writeTo(model);
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      lines.add("the cat sat on the mat .\tcat");
      lines.add("the car ran in the city .\tcar");
    }
    Path train = Files.write(dir.resolve("train.tsv"), lines);
    Path outDir = Files.createDirectory(dir.resolve("models"));
    Path out = outDir.resolve("tuned");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> command = new ArrayList<>(ChildProcesses.withDefaultSigint(List.of()));
    command.addAll(List.of(java, "-Xmx512m", "-cp", cp, "io.headscope.app.Launcher", "finetune",
        "--model", model.toString(), "--train", train.toString(), "--epochs", "1000", "--lr", "1e-3",
        "--out", out.toString()));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    StringBuilder seen = new StringBuilder();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        seen.append(line).append('\n');
        if (line.startsWith("headscope: epoch 1/1000")) { // the first epoch is written: stop in a later one
          new ProcessBuilder("kill", "-INT", String.valueOf(p.pid())).start().waitFor();
          break;
        }
      }
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("Ctrl-C was heeded within 60 s:%n%s", seen).isTrue();
      r.lines().forEach(l -> seen.append(l).append('\n'));
    } finally {
      p.destroyForcibly();
    }
    assertThat(p.exitValue()).as(seen.toString()).isEqualTo(130);
    assertThat(seen.toString()).containsPattern("headscope: cancelled; .*tuned keeps epoch \\d+ of 1000\\.");
    assertThat(out.resolve("config.json")).exists();
    assertThat(out.resolve("model.safetensors")).exists();
    try (var files = Files.list(outDir)) {
      assertThat(files.map(f -> f.getFileName().toString())).as("no temporary folder").containsExactly("tuned");
    }
  }

  private record Interrupted(int exit, String output) {}

  /** Starts an ablation of a long corpus, sends {@code signal} once it reports progress, checks nothing was written. */
  private Interrupted interruptAblation(String signal) throws Exception {
    Path model = dir.resolve("tiny");
    TinyBert.create(2, 2, 3).writeTo(model);
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 20000; i++) {
      lines.add("the cat sat on the mat and the dog ran to the house .");
    }
    Path corpus = Files.write(dir.resolve("corpus.txt"), lines);
    return interrupt(signal, "ablate", List.of("--model", model.toString(), "--corpus", corpus.toString()));
  }

  /** Starts {@code command} with {@code args}, sends {@code signal} once it reports progress, checks nothing was written. */
  private Interrupted interrupt(String signal, String name, List<String> args) throws Exception {
    Path outDir = Files.createDirectory(dir.resolve("out"));
    Path out = outDir.resolve(name + ".csv");

    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> command = new ArrayList<>(ChildProcesses.withDefaultSigint(List.of()));
    command.addAll(List.of(java, "-Xmx512m", "-cp", cp, "io.headscope.app.Launcher", name));
    command.addAll(args);
    command.addAll(List.of("--out", out.toString()));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    StringBuilder seen = new StringBuilder();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        seen.append(line).append('\n');
        if (line.startsWith("headscope: " + name + " ")) { // the first progress line: the work is running
          if (signal.equals("INT")) {
            assertThat(ChildProcesses.sigintIgnored(p.pid())).as("the child JVM started with SIGINT ignored").isFalse();
          }
          new ProcessBuilder("kill", "-" + signal, String.valueOf(p.pid())).start().waitFor();
          break;
        }
      }
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the %s was heeded within 60 s:%n%s", signal, seen).isTrue();
      r.lines().forEach(l -> seen.append(l).append('\n'));
    } finally {
      p.destroyForcibly();
    }
    assertThat(seen.toString()).contains("headscope: " + name + " ");
    assertThat(seen.toString()).contains("headscope: cancelled; nothing was written.");
    try (var files = Files.list(outDir)) {
      assertThat(files).as("no output and no temporary file").isEmpty();
    }
    return new Interrupted(p.exitValue(), seen.toString());
  }
}
