package io.headscope.app.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the CLI as its own process (a JVM per call, as a cluster's array task runs it). */
final class ChildCli {
  private ChildCli() {}

  /** A started process; {@link #result()} waits for it. */
  record Started(Process process, Path out, Path err) {
    CliHarness.Result result() throws IOException, InterruptedException {
      if (!process.waitFor(10, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new AssertionError("child CLI did not finish");
      }
      return new CliHarness.Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    }
  }

  /** Starts {@code headscope args...} in a new JVM; its output goes to files in {@code dir}. */
  static Started start(Path dir, String... args) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> command = new ArrayList<>(List.of(java, "-Xmx512m", "-XX:+UseSerialGC", "-cp", cp,
        "io.headscope.app.Launcher"));
    command.addAll(List.of(args));
    Path out = Files.createTempFile(dir, "child", ".out");
    Path err = Files.createTempFile(dir, "child", ".err");
    Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    return new Started(p, out, err);
  }
}
