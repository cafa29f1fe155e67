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
}
