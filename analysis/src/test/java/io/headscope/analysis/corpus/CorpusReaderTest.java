package io.headscope.analysis.corpus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.core.HeadScopeException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CorpusReaderTest {
  @TempDir Path dir;

  private Path write(String text) throws IOException {
    Path f = dir.resolve("c.txt");
    Files.writeString(f, text, StandardCharsets.UTF_8);
    return f;
  }

  @Test
  void linesBecomeInputsAndATabMakesAPair() throws IOException {
    Corpus c = CorpusReader.read(write("The cat sat.\nA dog ran.\tIt was fast.\n"));
    assertThat(c.inputs()).containsExactly(
        new CorpusInput(1, "The cat sat.", null), new CorpusInput(2, "A dog ran.", "It was fast."));
    assertThat(c.problems()).isEmpty();
    assertThat(c.inputs().get(1).isPair()).isTrue();
  }

  @Test
  void blankLinesAreReportedWithTheirNumbersAndSkipped() throws IOException {
    Corpus c = CorpusReader.read(write("one.\n\n   \ntwo.\n"));
    assertThat(c.inputs()).extracting(CorpusInput::line).containsExactly(1, 4);
    assertThat(c.problems()).extracting(CorpusProblem::line).containsExactly(2, 3);
    assertThat(c.problems().get(0).toString()).isEqualTo("line 2: blank line; skipped");
  }

  @ParameterizedTest
  @ValueSource(strings = {"a\tb\tc", "\tb", "a\t", "a\t  "})
  void malformedPairsAreReportedNotFatal(String bad) throws IOException {
    Corpus c = CorpusReader.read(write("fine.\n" + bad + "\nalso fine.\n"));
    assertThat(c.inputs()).extracting(CorpusInput::line).containsExactly(1, 3);
    assertThat(c.problems()).singleElement().satisfies(p -> assertThat(p.line()).isEqualTo(2));
  }

  @Test
  void overLongLinesAreReportedNotFatal() throws IOException {
    Path f = write("short.\n" + "word ".repeat(30) + "\nshort again.\n");
    Corpus c = new CorpusReader(100).readFile(f);
    assertThat(c.inputs()).extracting(CorpusInput::line).containsExactly(1, 3);
    assertThat(c.problems()).singleElement().satisfies(p -> {
      assertThat(p.line()).isEqualTo(2);
      assertThat(p.message()).contains("longer than 100 characters");
    });
  }

  @Test
  void windowsLineEndingsAndAByteOrderMarkAreTolerated() throws IOException {
    Corpus c = CorpusReader.read(write("\uFEFFone.\r\ntwo.\tthree.\r\n"));
    assertThat(c.inputs()).containsExactly(new CorpusInput(1, "one.", null), new CorpusInput(2, "two.", "three."));
  }

  @Test
  void aFileWithNoUsableLineIsAnError() throws IOException {
    Path f = write("\n\n");
    assertThatThrownBy(() -> CorpusReader.read(f)).isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("no usable input").hasMessageContaining("line 1: blank");
  }

  @Test
  void unreadableFilesAreOneSentenceErrors() throws IOException {
    assertThatThrownBy(() -> CorpusReader.read(dir.resolve("missing.txt")))
        .isInstanceOf(HeadScopeException.class).hasMessageContaining("does not exist");
    assertThatThrownBy(() -> CorpusReader.read(dir)).isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("is a folder");
    Path latin1 = dir.resolve("latin1.txt");
    Files.write(latin1, new byte[] {'c', 'a', 'f', (byte) 0xE9, '\n'});
    assertThatThrownBy(() -> CorpusReader.read(latin1)).isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("not UTF-8");
  }

  @Test
  void theShippedCorporaReadWithoutProblems() {
    for (String name : new String[] {"english-sentences", "english-pairs", "masked-sentences", "multilingual"}) {
      Corpus c = CorpusReader.resource("/headscope/corpus/" + name + ".txt");
      assertThat(c.problems()).as(name).isEmpty();
      assertThat(c.inputs()).as(name).isNotEmpty();
    }
    Corpus pairs = CorpusReader.resource("/headscope/corpus/english-pairs.txt");
    assertThat(pairs.inputs()).hasSizeGreaterThanOrEqualTo(150).allMatch(CorpusInput::isPair);
  }
}
