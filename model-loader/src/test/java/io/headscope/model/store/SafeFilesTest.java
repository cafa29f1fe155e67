package io.headscope.model.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.core.HeadScopeException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Extraction stays inside its folder; output is whole or absent. */
class SafeFilesTest {
  @TempDir Path tmp;

  @ParameterizedTest
  @ValueSource(strings = {"../evil", "a/../../evil", "/tmp/evil-absolute", "ok/../../../evil", ".."})
  void zipSlipEntriesAreRefusedAndNothingIsWrittenOutside(String name) throws IOException {
    Path target = tmp.resolve("inside/target");
    Files.createDirectories(target);
    byte[] zip = zip(List.of("good.txt", name));
    assertThatThrownBy(() -> SafeFiles.unzip(new ByteArrayInputStream(zip), target))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining(name)
        .hasMessageContaining("outside");
    try (Stream<Path> all = Files.walk(tmp)) {
      assertThat(all.filter(Files::isRegularFile).map(p -> p.getFileName().toString()))
          .noneMatch(n -> n.contains("evil"));
    }
    assertThat(Path.of("/tmp/evil-absolute")).doesNotExist();
  }

  @Test
  void ordinaryArchiveIsExtracted() throws IOException {
    Path target = tmp.resolve("target");
    SafeFiles.unzip(new ByteArrayInputStream(zip(List.of("a.txt", "dir/b.txt", "dir/./c.txt"))), target);
    assertThat(Files.readString(target.resolve("dir/b.txt"))).isEqualTo("dir/b.txt");
    assertThat(target.resolve("dir/c.txt")).exists();
  }

  @Test
  void fullDiskLeavesNoFileAndSaysSo() throws IOException {
    Path out = tmp.resolve("result.json");
    assertThatThrownBy(() -> SafeFiles.writeAtomically(out, false, o -> {
      o.write("{\"half\": ".getBytes(StandardCharsets.UTF_8));
      throw new IOException("No space left on device");
    }))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining(out.toString())
        .hasMessageContaining("disk is full")
        .hasMessageContaining("nothing was written");
    assertThat(out).doesNotExist();
    assertThat(listing(tmp)).isEmpty(); // no temporary file left behind either
  }

  @Test
  void fullDiskWhileReplacingKeepsTheOldFile() throws IOException {
    Path out = tmp.resolve("result.json");
    Files.writeString(out, "old");
    assertThatThrownBy(() -> SafeFiles.writeAtomically(out, true, o -> {
      throw new IOException("No space left on device");
    })).isInstanceOf(HeadScopeException.class);
    assertThat(Files.readString(out)).isEqualTo("old");
    assertThat(listing(tmp)).containsExactly("result.json");
  }

  @Test
  void existingFileIsNotOverwrittenWithoutForce() throws IOException {
    Path out = tmp.resolve("result.json");
    Files.writeString(out, "old");
    assertThatThrownBy(() -> SafeFiles.writeAtomically(out, false, o -> o.write(1)))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("already exists")
        .hasMessageContaining("--force");
    assertThat(Files.readString(out)).isEqualTo("old");
    SafeFiles.writeAtomically(out, true, o -> o.write("new".getBytes(StandardCharsets.UTF_8)));
    assertThat(Files.readString(out)).isEqualTo("new");
  }

  @Test
  void missingFolderAndFolderAsFileAreNamed() {
    Path inMissing = tmp.resolve("no/such/folder/out.json");
    assertThatThrownBy(() -> SafeFiles.writeAtomically(inMissing, false, o -> o.write(1)))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("does not exist");
    assertThatThrownBy(() -> SafeFiles.writeAtomically(tmp, false, o -> o.write(1)))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("is a folder");
  }

  @Test
  void pathUnderARegularFileIsRefused() throws IOException {
    Path file = tmp.resolve("plain.txt");
    Files.writeString(file, "x");
    assertThatThrownBy(() -> SafeFiles.writeAtomically(file.resolve("out.json"), false, o -> o.write(1)))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("out.json");
    assertThat(Files.readString(file)).isEqualTo("x");
  }

  private static List<String> listing(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).toList();
    }
  }

  private static byte[] zip(List<String> names) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ZipOutputStream z = new ZipOutputStream(bytes)) {
      for (String n : names) {
        z.putNextEntry(new ZipEntry(n));
        z.write(n.getBytes(StandardCharsets.UTF_8));
        z.closeEntry();
      }
    }
    return bytes.toByteArray();
  }
}
