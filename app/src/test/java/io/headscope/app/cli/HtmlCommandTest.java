package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** `headscope html`: one page through the atomic output path, and one clear line for bad input. */
class HtmlCommandTest extends OnTinyModel {
  @Test
  void writesOneSelfContainedPage() throws Exception {
    Path out = dir.resolve("view.html");
    CliHarness.Result r = CliHarness.run("html", "--model", model.toString(), "--text", "the cat sat on the [MASK] .",
        "--disable", "1-2", "--mode", "uniform", "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    String page = Files.readString(out, StandardCharsets.UTF_8);
    assertThat(page).startsWith("<!DOCTYPE html>").contains("Content-Security-Policy")
        .contains("\"disabled\":[\"1-2\"]").contains("\"mode\":\"uniform\"").doesNotContain("{{");
    assertThat(r.err()).contains("headscope: wrote " + out);
    // never over an existing file without --force
    CliHarness.Result again = CliHarness.run("html", "--model", model.toString(), "--text", "hi", "--out", out.toString());
    assertThat(again.exit()).isEqualTo(1);
    assertThat(again.errLines()).hasSize(1);
  }

  @Test
  void anEmptyTextIsOneLine() {
    CliHarness.Result r = CliHarness.run("html", "--model", model.toString(), "--text", " ", "--out",
        dir.resolve("empty.html").toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("The text of --text is empty");
    assertThat(dir.resolve("empty.html")).doesNotExist();
  }

  @Test
  void anUnwritableOutIsOneLineBeforeTheModelRuns() {
    CliHarness.Result r = CliHarness.run("html", "--model", model.toString(), "--text", "hi", "--out",
        dir.resolve("no/such/folder/view.html").toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.errLines()).hasSize(1);
  }

  @Test
  void aBadHeadIsOneLine() {
    CliHarness.Result r = CliHarness.run("html", "--model", model.toString(), "--text", "hi", "--disable", "9-9",
        "--out", dir.resolve("bad.html").toString());
    assertThat(r.exit()).isNotZero();
    assertThat(r.errLines()).hasSize(1);
  }

  @Test
  void drawsArraysWithoutAModel() throws Exception {
    Path npz = dir.resolve("arrays.npz");
    try (var out = Files.newOutputStream(npz); var z = new io.headscope.analysis.export.Npz(out)) {
      z.strings("tokens", java.util.List.of("[CLS]", "</script><img src=x onerror=alert(1)>", "[SEP]"));
      z.floats("attention", new float[][][][] {{{{0.5f, 0.25f, 0.25f}, {0.2f, 0.3f, 0.5f}, {1, 0, 0}}}});
    }
    Path out = dir.resolve("arrays.html");
    // no --model: a model would be bert-base, which this test never loads
    CliHarness.Result r = CliHarness.run("html", "--arrays", npz.toString(), "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    String page = Files.readString(out, StandardCharsets.UTF_8);
    assertThat(page).contains("\"source\":\"arrays\"").contains("\\u003c/script\\u003e\\u003cimg")
        .doesNotContain("<img").doesNotContain("{{");
  }

  @Test
  void badArraysAreOneLineAndNoFile() throws Exception {
    Path npz = dir.resolve("bad.npz");
    try (var out = Files.newOutputStream(npz); var z = new io.headscope.analysis.export.Npz(out)) {
      z.strings("tokens", java.util.List.of("a", "b"));
      z.floats("attention", new float[][][][] {{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}});
    }
    Path out = dir.resolve("bad.html");
    CliHarness.Result r = CliHarness.run("html", "--arrays", npz.toString(), "--out", out.toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("2 query tokens");
    assertThat(out).doesNotExist();
    CliHarness.Result both = CliHarness.run("html", "--arrays", npz.toString(), "--text", "hi", "--out", out.toString());
    assertThat(both.exit()).isEqualTo(2);
    assertThat(both.errLines()).hasSize(1);
    CliHarness.Result missing = CliHarness.run("html", "--arrays", dir.resolve("none.npz").toString(), "--out",
        out.toString());
    assertThat(missing.exit()).isEqualTo(1);
    assertThat(missing.err()).contains("does not exist");
    assertThat(out).doesNotExist();
  }
}
