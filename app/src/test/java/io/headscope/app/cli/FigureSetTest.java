package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** `render` writes its figures as one set: a problem at a later figure leaves the earlier ones unwritten too. */
class FigureSetTest extends OnTinyModel {
  @Test
  void aLinkInALaterFiguresPlaceLeavesNoFigureWritten() throws Exception {
    Path out = Files.createDirectories(dir.resolve("figs-link"));
    Path elsewhere = Files.writeString(dir.resolve("precious.txt"), "not a figure");
    Files.createSymbolicLink(out.resolve("head-2-2.png"), elsewhere);
    CliHarness.Result r = CliHarness.run("render", "--model", model.toString(), "--text", "the cat sat .",
        "--head", "1-1,2-2", "--out", out.toString(), "--force");
    assertThat(r.exit()).as(r.err()).isEqualTo(1);
    assertThat(r.errLines()).anyMatch(l -> l.contains("head-2-2.png is a symbolic link"));
    assertThat(out.resolve("grid.png")).doesNotExist();
    assertThat(out.resolve("head-1-1.png")).doesNotExist();
    assertThat(elsewhere).hasContent("not a figure");
  }

  @Test
  void aFolderInALaterFiguresPlaceLeavesTheEarlierFiguresAsTheyWere() throws Exception {
    Path out = Files.createDirectories(dir.resolve("figs-folder"));
    CliHarness.Result first = CliHarness.run("render", "--model", model.toString(), "--text", "the cat sat .",
        "--head", "1-1", "--out", out.toString());
    assertThat(first.exit()).as(first.err()).isZero();
    byte[] grid = Files.readAllBytes(out.resolve("grid.png"));
    Files.createDirectories(out.resolve("head-2-2.png"));
    CliHarness.Result r = CliHarness.run("render", "--model", model.toString(), "--text", "a dog ran far .",
        "--head", "1-1,2-2", "--out", out.toString(), "--force");
    assertThat(r.exit()).as(r.err()).isEqualTo(1);
    assertThat(Files.readAllBytes(out.resolve("grid.png"))).as("the earlier run's grid").isEqualTo(grid);
    try (var files = Files.list(out)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("grid.png", "head-1-1.png",
          "head-2-2.png");
    }
  }

  @Test
  void aWholeSetIsWritten() throws Exception {
    Path out = dir.resolve("figs-ok");
    CliHarness.Result r = CliHarness.run("render", "--model", model.toString(), "--text", "the cat sat .",
        "--head", "1-1,2-2", "--format", "svg", "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    try (var files = Files.list(out)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrderElementsOf(
          List.of("grid.svg", "head-1-1.svg", "head-2-2.svg"));
    }
  }
}
