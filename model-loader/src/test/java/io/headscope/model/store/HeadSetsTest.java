package io.headscope.model.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HeadSetsTest {
  @TempDir Path dir;

  @Test
  void aSavedSetReadsBackAsTheSameHeadsWithWholeLayersWrittenAsL() {
    Path file = dir.resolve("conf/head-sets.txt");
    Set<Head> off = new java.util.TreeSet<>(Head.parseList("8-10,9-6,11", 12, 12));
    HeadSets.read(file).with("gender", off, 12).write();
    assertThat(Files.exists(file)).isTrue();
    HeadSets back = HeadSets.read(file);
    assertThat(back.sets()).containsEntry("gender", "8-10, 9-6, L11");
    assertThat(back.heads("gender", 12, 12)).isEqualTo(off);
  }

  @Test
  void savingReplacesTheFileWholeAndLeavesNoTemporary() throws Exception {
    Path file = dir.resolve("head-sets.txt");
    Files.writeString(file, "# mine\nsyntax: 5-4\n");
    HeadSets.read(file).with("gender", Set.of(new Head(7, 9)), 12).write();
    assertThat(HeadSets.read(file).sets()).containsExactly(
        java.util.Map.entry("syntax", "5-4"), java.util.Map.entry("gender", "8-10"));
    try (var files = Files.list(dir)) {
      // AtomicOutput writes a hidden .part beside the file and renames it: none may be left behind
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly("head-sets.txt");
    }
  }

  @Test
  void aCorruptLineIsRefusedInOneLineNamingTheLine() throws Exception {
    Path file = dir.resolve("head-sets.txt");
    Files.writeString(file, "gender: 8-10\n\nbroken 8-10, x\n", StandardCharsets.UTF_8);
    assertThatThrownBy(() -> HeadSets.read(file))
        .isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("line 3")
        .hasMessageContaining("broken 8-10, x")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }

  @Test
  void anUnknownNameIsRefusedListingTheKnownOnes() throws Exception {
    Path file = dir.resolve("head-sets.txt");
    Files.writeString(file, "gender: 8-10\nsyntax: L5\n");
    assertThatThrownBy(() -> HeadSets.parse("@gendr", 12, 12, () -> HeadSets.read(file)))
        .hasMessageContaining("gendr").hasMessageContaining("known: gender, syntax")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }

  @Test
  void aListMayMixSetsAndHeads() throws Exception {
    Path file = dir.resolve("head-sets.txt");
    Files.writeString(file, "gender: 8-10, L2\n");
    assertThat(HeadSets.parse("@gender, 1-1", 12, 12, () -> HeadSets.read(file)))
        .isEqualTo(Set.copyOf(Head.parseList("8-10,2,1-1", 12, 12)));
  }

  @Test
  void aMissingFileHoldsNoSets() {
    assertThat(HeadSets.read(dir.resolve("none.txt")).sets()).isEmpty();
  }
}
