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
}
