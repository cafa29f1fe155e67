package io.headscope.model.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.headscope.model.core.HeadScopeException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Outputs replace nothing but a regular file, never lose a concurrent result, and keep permissions. */
class AtomicOutputTest {
  @TempDir Path dir;

  private static SafeFiles.Content text(String s) {
    return o -> o.write(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aSymbolicLinkIsNeitherReplacedNorWrittenThrough() throws Exception {
    Path target = Files.writeString(dir.resolve("real.csv"), "keep");
    Path link = Files.createSymbolicLink(dir.resolve("link.csv"), target);
    assertThatThrownBy(() -> SafeFiles.writeAtomically(link, true, text("new")))
        .isInstanceOf(HeadScopeException.class).hasMessageContaining("symbolic link");
    assertThatThrownBy(() -> AtomicOutput.check(link, true)).hasMessageContaining("symbolic link");
    assertThat(Files.isSymbolicLink(link)).isTrue();
    assertThat(Files.readString(target)).isEqualTo("keep");
  }

  @Test
  void aNamedPipeIsNeverReplaced() throws Exception {
    Path fifo = dir.resolve("pipe");
    assumeTrue(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0, "mkfifo works here");
    assertThatThrownBy(() -> SafeFiles.writeAtomically(fifo, true, text("x")))
        .isInstanceOf(HeadScopeException.class).hasMessageContaining("named pipe (FIFO)");
    assertThat(AtomicOutput.whatIsAt(fifo)).isEqualTo("a named pipe (FIFO)");
  }

  @Test
  void aDeviceIsNeverReplaced() throws Exception {
    Path dev = dir.resolve("null-device");
    // the same device numbers as /dev/null, made in the test's own folder (needs root, as the bug did)
    assumeTrue(new ProcessBuilder("mknod", dev.toString(), "c", "1", "3").start().waitFor() == 0, "mknod works here");
    assertThatThrownBy(() -> SafeFiles.writeAtomically(dev, true, text("x")))
        .isInstanceOf(HeadScopeException.class).hasMessageContaining("a character device");
    assertThat(AtomicOutput.whatIsAt(dev)).isEqualTo("a character device");
  }

  @Test
  void aReplacedFileKeepsItsPermissionsAndANewFileGetsTheUmasksDefault() throws Exception {
    Path old = Files.writeString(dir.resolve("old.csv"), "old");
    Files.setPosixFilePermissions(old, PosixFilePermissions.fromString("rw-r-----"));
    SafeFiles.writeAtomically(old, true, text("new"));
    assertThat(Files.readString(old)).isEqualTo("new");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(old))).isEqualTo("rw-r-----");

    Path reference = Files.createFile(dir.resolve("made-plainly")); // what any new file gets here
    Path fresh = dir.resolve("fresh.csv");
    SafeFiles.writeAtomically(fresh, false, text("x"));
    assertThat(Files.getPosixFilePermissions(fresh)).isEqualTo(Files.getPosixFilePermissions(reference));
  }

  @Test
  void withoutForceAFileThatAppearsDuringTheWriteIsKeptAndTheWriteFails() throws Exception {
    Path out = dir.resolve("result.csv");
    // another run finishes first, while this one is still writing
    assertThatThrownBy(() -> SafeFiles.writeAtomically(out, false, o -> {
      o.write("ours".getBytes(StandardCharsets.UTF_8));
      Files.writeString(out, "theirs");
    })).isInstanceOf(HeadScopeException.class).hasMessageContaining("already exists");
    assertThat(Files.readString(out)).isEqualTo("theirs");
    try (var files = Files.list(dir)) {
      assertThat(files).containsExactly(out);
    }
  }

  @Test
  void anEmptyNameIsSaidToBeEmpty() {
    assertThatThrownBy(() -> AtomicOutput.check(Path.of(""), false)).hasMessageContaining("empty");
  }

  @Test
  void staleTemporariesOfDeadProcessesAreSweptAndLiveOnesKept() throws Exception {
    String machine = AtomicOutput.MACHINE;
    // a PID that cannot be running: above the kernel's pid_max
    Path dead = Files.writeString(dir.resolve(".x.json.headscope-" + machine + "-99999999-1.part"), "left by a killed run");
    Path mine = Files.writeString(dir.resolve(".y.json.headscope-" + machine + "-" + ProcessHandle.current().pid()
        + "-7.part"), "live");
    Path oldStyle = Files.writeString(dir.resolve(".z.json.1234567890.part"), "older HeadScope");
    Files.setLastModifiedTime(oldStyle, java.nio.file.attribute.FileTime.fromMillis(0));
    Path unrelated = Files.writeString(dir.resolve(".notes.part"), "not ours");
    SafeFiles.writeAtomically(dir.resolve("out.csv"), false, text("x"));
    assertThat(dead).doesNotExist();
    assertThat(oldStyle).doesNotExist();
    assertThat(mine).exists();
    assertThat(unrelated).exists();
    assertThat(Files.isRegularFile(dir.resolve("out.csv"), LinkOption.NOFOLLOW_LINKS)).isTrue();
  }

  @Test
  void anotherMachinesTemporaryIsKeptWhateverItsPidSaysHereUntilItHasStoodADay() throws Exception {
    // a writer on another node or in another container: its PID is not visible here, yet it may be live
    String other = AtomicOutput.MACHINE.equals("0badc0de") ? "0badc0df" : "0badc0de";
    Path live = Files.writeString(dir.resolve(".a.json.headscope-" + other + "-99999999-1.part"), "being written");
    Path pidOnly = Files.writeString(dir.resolve(".b.json.headscope-99999999-1.part"), "a release before the tag");
    Path abandoned = Files.writeString(dir.resolve(".c.json.headscope-" + other + "-99999999-2.part"), "killed");
    Path oldPidOnly = Files.writeString(dir.resolve(".d.json.headscope-99999999-2.part"), "killed long ago");
    long twoDaysAgo = System.currentTimeMillis() - 2 * AtomicOutput.FOREIGN_AGE_MILLIS;
    Files.setLastModifiedTime(abandoned, java.nio.file.attribute.FileTime.fromMillis(twoDaysAgo));
    Files.setLastModifiedTime(oldPidOnly, java.nio.file.attribute.FileTime.fromMillis(twoDaysAgo));
    SafeFiles.writeAtomically(dir.resolve("out.csv"), false, text("x"));
    assertThat(live).exists();
    assertThat(pidOnly).exists();
    assertThat(abandoned).doesNotExist();
    assertThat(oldPidOnly).doesNotExist();
  }

  @Test
  void aNameTooLongForItsTemporaryFailsAtTheEarlyCheck() {
    // 240 bytes pass as a file name, but the temporary beside it is about 40 bytes longer (255 is the limit)
    Path target = dir.resolve("a".repeat(240) + ".csv");
    assertThatThrownBy(() -> AtomicOutput.check(target, false)).isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("Cannot write").hasMessageContaining("too long");
    assertThat(dir).isEmptyDirectory();
  }

  // --- issue 39 G08: a CSV and its sidecar, both or neither, even if killed between two renames ---

  /**
   * Looks at the folder before every rename of a set's publication (where a SIGKILL could land) and after
   * the last: wherever the CSV stands, its sidecar of the same write stands beside it.
   */
  @Test
  void aReaderThatFindsTheCsvAlwaysFindsItsOwnSidecarBetweenAnyTwoRenames() throws Exception {
    Path csv = dir.resolve("p.csv");
    Path json = dir.resolve("p.csv.json");
    for (boolean overwrite : new boolean[] {false, true}) {
      for (String run : new String[] {"first", "second"}) {
        if (!overwrite && run.equals("second")) {
          continue;
        }
        java.util.List<String> seen = new java.util.ArrayList<>();
        Runnable look = () -> {
          try {
            if (Files.exists(csv)) {
              String c = Files.readString(csv);
              String j = Files.exists(json) ? Files.readString(json) : "(none)";
              seen.add(c + " beside " + j);
            } else {
              seen.add("no csv");
            }
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        };
        AtomicOutput.beforeEachRename = look;
        try {
          AtomicOutput.writeSet(java.util.List.of(new AtomicOutput.Member(csv, text("csv " + run)),
              new AtomicOutput.Member(json, text("json " + run))), overwrite);
        } finally {
          AtomicOutput.beforeEachRename = null;
        }
        look.run();
        assertThat(seen).as("overwrite %s, %s write", overwrite, run).allSatisfy(state -> assertThat(state)
            .matches("no csv|csv (\\w+) beside json \\1"));
        assertThat(seen.get(seen.size() - 1)).isEqualTo("csv " + run + " beside json " + run);
      }
      Files.deleteIfExists(csv);
      Files.deleteIfExists(json);
    }
    try (var left = Files.list(dir)) {
      assertThat(left.toList()).as("no temporary and no old CSV left aside").isEmpty();
    }
  }

  /** A failed publication of the new set (here: the sidecar's place turned into a folder) keeps the old CSV. */
  @Test
  void aSetThatFailsAtTheLastStepLeavesTheOldCsvInPlace() throws Exception {
    Path csv = Files.writeString(dir.resolve("q.csv"), "old csv");
    Path json = Files.writeString(dir.resolve("q.csv.json"), "old json");
    AtomicOutput.beforeEachRename = () -> {
      try {
        if (Files.isRegularFile(json)) {
          Files.delete(json);
          Files.createDirectory(json); // the sidecar's rename fails: a folder is never replaced
        }
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    };
    try {
      assertThatThrownBy(() -> AtomicOutput.writeSet(java.util.List.of(new AtomicOutput.Member(csv, text("new csv")),
          new AtomicOutput.Member(json, text("new json"))), true)).isInstanceOf(HeadScopeException.class);
    } finally {
      AtomicOutput.beforeEachRename = null;
    }
    assertThat(Files.readString(csv)).isEqualTo("old csv");
  }

  // --- issue 39 F14: a killed writer's temporary folder is swept like its temporary files ---

  @Test
  void aDeadWritersTemporaryFolderIsSweptAndALiveOnesKept() throws Exception {
    String machine = AtomicOutput.MACHINE;
    Path dead = Files.createDirectory(dir.resolve(".model.headscope-" + machine + "-99999999-3.part"));
    Files.writeString(dead.resolve("model.safetensors"), "50 MB in the real case");
    Path beside = Files.createDirectory(dir.resolve(".tuned.headscope-" + machine + "-99999999-4.part"));
    Files.writeString(beside.resolve("config.json"), "{}");
    Path live = Files.createDirectory(dir.resolve(".model.headscope-" + machine + "-" + ProcessHandle.current().pid()
        + "-5.part"));
    Path notOurs = Files.createDirectory(dir.resolve(".cache.part"));
    SafeFiles.writeAtomically(dir.resolve("a.json"), false, text("{}"));
    assertThat(dead).doesNotExist();
    assertThat(beside).doesNotExist();
    assertThat(live).isDirectory();
    assertThat(notOurs).isDirectory();
  }
}
