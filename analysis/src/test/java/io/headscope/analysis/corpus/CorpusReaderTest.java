package io.headscope.analysis.corpus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.HeadScopeException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CorpusReaderTest {
  @TempDir Path dir;

  @Test
  void readsSentencesAndTabSeparatedPairsAndSkipsBlankLines() throws Exception {
    Path f = dir.resolve("c.txt");
    Files.writeString(f, "The cat sat.\n\n  \nA man is here.\tSomeone is here.\n", StandardCharsets.UTF_8);
    List<CorpusReader.Line> lines = CorpusReader.read(f);
    assertThat(lines).containsExactly(new CorpusReader.Line(1, "The cat sat.", null),
        new CorpusReader.Line(4, "A man is here.", "Someone is here."));
  }

  @Test
  void badFilesGiveOneSentenceNamingTheProblem() throws Exception {
    assertThatThrownBy(() -> CorpusReader.read(dir.resolve("none.txt")))
        .isInstanceOf(HeadScopeException.class).hasMessageContaining("does not exist");
    Path empty = Files.writeString(dir.resolve("empty.txt"), "\n \n");
    assertThatThrownBy(() -> CorpusReader.read(empty)).hasMessageContaining("has no sentences");
    Path tabs = Files.writeString(dir.resolve("tabs.txt"), "ok\na\tb\tc\n");
    assertThatThrownBy(() -> CorpusReader.read(tabs)).hasMessageContaining("Line 2").hasMessageContaining("TAB");
    Path half = Files.writeString(dir.resolve("half.txt"), "a\t \n");
    assertThatThrownBy(() -> CorpusReader.read(half)).hasMessageContaining("Line 1").hasMessageContaining("empty");
    Path latin1 = Files.write(dir.resolve("latin1.txt"), new byte[] {'c', 'a', 'f', (byte) 0xE9, '\n'});
    assertThatThrownBy(() -> CorpusReader.read(latin1)).hasMessageContaining("not UTF-8");
  }
}
