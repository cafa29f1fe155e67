package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.headscope.model.testing.TinyBert;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fault hunt's output and command-line cases, met as a user meets them: real child processes, a
 * full disk ({@code /dev/full}), a read-only mount (a private mount namespace), a POSIX locale.
 */
@EnabledOnOs(OS.LINUX)
class OutputFaultsTest {
  @TempDir static Path dir;
  static Path model;

  @BeforeAll
  static void writeModel() {
    model = TinyBert.create(2, 2, 3).writeTo(dir.resolve("tiny")).config().getParent();
  }

  record Run(int exit, String out, String err) {}

  static Run child(Map<String, String> env, File stdout, List<String> prefix, String... args) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> cmd = new ArrayList<>(prefix);
    cmd.addAll(List.of(java, "-Xmx512m", "-cp", cp, "io.headscope.app.Launcher"));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().putAll(env);
    Path err = Files.createTempFile(dir, "err", ".txt");
    pb.redirectError(err.toFile());
    Path out = null;
    if (stdout != null) {
      pb.redirectOutput(stdout);
    } else {
      out = Files.createTempFile(dir, "out", ".txt");
      pb.redirectOutput(out.toFile());
    }
    Process p = pb.start();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    return new Run(p.exitValue(), out == null ? "" : Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  static List<String> lines(String s) {
    return s.lines().filter(l -> !l.isBlank()).toList();
  }

  @Test
  void stdoutOnAFullDiskIsAnErrorNotExitZero() throws Exception {
    Run r = child(Map.of(), new File("/dev/full"), List.of(), "attention", "--model", model.toString(), "--text",
        "the cat sat on the mat .");
    assertThat(r.exit()).as(r.err()).isEqualTo(1);
    assertThat(lines(r.err())).hasSize(1);
    assertThat(r.err()).contains("Cannot write to standard output");
  }

  @Test
  void aReadOnlyOutputFolderIsFoundBeforeAnyModelWork() throws Exception {
    Path ro = Files.createDirectory(dir.resolve("read-only"));
    assumeTrue(new ProcessBuilder("unshare", "-m", "true").start().waitFor() == 0, "private mount namespaces here");
    List<String> corpus = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      corpus.add("the cat sat on the mat .");
    }
    Path file = Files.write(dir.resolve("corpus.txt"), corpus);
    // as root, permission bits do not stop a write: only a read-only mount does
    List<String> mountRo = List.of("unshare", "-m", "sh", "-c",
        "mount --bind \"$0\" \"$0\" && mount -o remount,bind,ro \"$0\" && exec \"$@\"", ro.toString());
    Run r = child(Map.of(), null, mountRo, "ablate", "--model", model.toString(), "--corpus", file.toString(),
        "--out", ro.resolve("ablation.csv").toString());
    assertThat(r.exit()).as(r.err()).isEqualTo(1);
    assertThat(r.err()).contains("read-only file system").doesNotContain("ablate 1%");
    assertThat(lines(r.err())).hasSize(1);
  }

  @Test
  void nonAsciiTextSurvivesAPosixLocale() throws Exception {
    Run posix = child(Map.of("LC_ALL", "C"), null, List.of(), "attention", "--model", model.toString(), "--text", "café ok");
    Run utf8 = child(Map.of("LC_ALL", "C.UTF-8"), null, List.of(), "attention", "--model", model.toString(), "--text", "café ok");
    assertThat(posix.exit()).as(posix.err()).isZero();
    String tokens = utf8.out().substring(utf8.out().indexOf("\"tokens\""), utf8.out().indexOf("\"ids\""));
    assertThat(posix.out()).contains(tokens);
    assertThat(tokens).contains("\"##e\""); // the é, folded to e by the uncased text rules, is there
  }

  @Test
  void aNonAsciiModelPathUnderAPosixLocaleIsOneLineNotAnInternalError() throws Exception {
    Run r = child(Map.of("LC_ALL", "C"), null, List.of(), "attention", "--model", dir.resolve("modèle").toString(),
        "--text", "hi");
    assertThat(r.exit()).as(r.err()).isEqualTo(1);
    assertThat(lines(r.err())).hasSize(1);
    assertThat(r.err()).doesNotContain("internal error");
  }

  @Test
  void badOptionValuesAreCommandLineErrorsWithTheRightHint() {
    CliHarness.Result mode = CliHarness.run("predict", "--model", model.toString(), "--text", "the [MASK] .", "--mode", "half");
    assertThat(mode.exit()).isEqualTo(2);
    assertThat(mode.err()).contains("--mode");
    CliHarness.Result top = CliHarness.run("predict", "--model", model.toString(), "--text", "the [MASK] .", "--top", "0");
    assertThat(top.exit()).isEqualTo(2);
    CliHarness.Result unknown = CliHarness.run("--frobnicate");
    assertThat(unknown.exit()).isEqualTo(2);
    assertThat(unknown.err()).contains("(see: headscope --help)").doesNotContain("headscope headscope");
    CliHarness.Result sub = CliHarness.run("attention", "--frobnicate");
    assertThat(sub.err()).contains("(see: headscope attention --help)");
  }

  @Test
  void anEmptyOutNameSaysSo() {
    CliHarness.Result r = CliHarness.run("attention", "--model", model.toString(), "--text", "hi", "--out", "");
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).contains("empty").doesNotContain(" is a folder");
  }

  @Test
  void devZeroAsACorpusIsOneLineNotAnOutOfMemoryError() {
    CliHarness.Result r = CliHarness.run("classify", "--model", model.toString(), "--corpus", "/dev/zero");
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("not a text file");
  }

  @Test
  void plainProgressStartsWithTheFirstBatch() throws Exception {
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    java.io.PrintStream old = System.err;
    System.setErr(new java.io.PrintStream(err, true, StandardCharsets.UTF_8));
    try (CorpusProgress p = new CorpusProgress("classify", false)) {
      p.update(0, 100_000);
      p.update(16, 100_000); // 0.016%: before, nothing until 10%
      p.update(32, 100_000);
      p.read(48, 0.0001);
    } finally {
      System.setErr(old);
    }
    List<String> shown = lines(err.toString(StandardCharsets.UTF_8));
    assertThat(shown).hasSize(1);
    assertThat(shown.get(0)).isEqualTo("headscope: classify: 16 of 100000 inputs (0%)");
  }
}
