package io.headscope.analysis.corpus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.core.HeadScopeException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LabelledCorpusTest {
  private static final List<String> LABELS = List.of("statement", "question");

  @TempDir Path dir;

  private Path write(String text) throws IOException {
    Path f = dir.resolve("labelled.tsv");
    Files.writeString(f, text, StandardCharsets.UTF_8);
    return f;
  }

  @Test
  void sentencesAndPairsWithNamedOrNumberedLabels() throws IOException {
    LabelledCorpus c = LabelledCorpus.read(write(
        "Is it raining?\tquestion\nThe bus is late.\t0\nThe kettle boiled.\tIt whistled.\tQUESTION\n"), LABELS);
    assertThat(c.inputs()).containsExactly(
        new LabelledInput(new CorpusInput(1, "Is it raining?", null), 1),
        new LabelledInput(new CorpusInput(2, "The bus is late.", null), 0),
        new LabelledInput(new CorpusInput(3, "The kettle boiled.", "It whistled."), 1));
    assertThat(c.problemCount()).isZero();
  }

  @Test
  void aHeaderLineIsSkippedSilentlyInEitherStyle() throws IOException {
    assertThat(LabelledCorpus.read(write("text\tlabel\nWhere is it?\tquestion\n"), LABELS).inputs())
        .extracting(LabelledInput::line).containsExactly(2);
    assertThat(LabelledCorpus.read(write("sentence,label\nWhere is it?\tquestion\n"), LABELS).inputs())
        .extracting(LabelledInput::line).containsExactly(2);
    LabelledCorpus pairs = LabelledCorpus.read(write("text_a\ttext_b\tlabel\nA b.\tC d.\t1\n"), LABELS);
    assertThat(pairs.inputs()).extracting(LabelledInput::line).containsExactly(2);
    assertThat(pairs.problemCount()).isZero();
  }

  @Test
  void aModelWhoseLabelIsCalledLabelKeepsTheFirstLine() throws IOException {
    LabelledCorpus c = LabelledCorpus.read(write("A tag\tlabel\nNot a tag\tother\n"), List.of("other", "label"));
    assertThat(c.inputs()).extracting(LabelledInput::label).containsExactly(1, 0);
  }

  @Test
  void badLinesAreReportedWithTheirNumbersAndSkipped() throws IOException {
    LabelledCorpus c = LabelledCorpus.read(write(String.join("\n",
        "Is it late?\tquestion", // 1 ok
        "", // 2 blank
        "No label here", // 3 missing field
        "It is.\texclamation", // 4 unknown label
        "It is.\t7", // 5 id out of range
        "A\tB\tC\tquestion", // 6 too many fields
        "\tquestion", // 7 empty text
        "It rains.\t", // 8 empty label
        "It rains.\tstatement")), LABELS); // 9 ok
    assertThat(c.inputs()).extracting(LabelledInput::line).containsExactly(1, 9);
    assertThat(c.problems()).extracting(CorpusProblem::line).containsExactly(2, 3, 4, 5, 6, 7, 8);
    assertThat(c.problemCount()).isEqualTo(7);
    assertThat(c.problems().get(2).message()).contains("\"exclamation\"").contains("statement, question");
  }

  @Test
  void aFileWithoutAnyUsableLineIsOneClearError() throws IOException {
    Path f = write("just text\nmore text\n");
    assertThatThrownBy(() -> LabelledCorpus.read(f, LABELS)).isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("no usable line");
    assertThatThrownBy(() -> LabelledCorpus.read(f, List.of())).isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("no sequence-classification head");
  }

  @Test
  void shardsSplitTheLinesAndTogetherHaveThemAll() throws IOException {
    Path f = write("a?\tquestion\nb.\tstatement\nc?\tquestion\nd.\tstatement\ne?\tquestion\n");
    List<Integer> first = LabelledCorpus.read(f, LABELS, new Shard(0, 2)).inputs().stream()
        .map(LabelledInput::line).toList();
    List<Integer> second = LabelledCorpus.read(f, LABELS, new Shard(1, 2)).inputs().stream()
        .map(LabelledInput::line).toList();
    assertThat(first).doesNotContainAnyElementsOf(second);
    assertThat(first.size() + second.size()).isEqualTo(5);
  }

  @Test
  void labelsOfABaseModelComeFromTheFile() throws IOException {
    assertThat(LabelledCorpus.labelsIn(write("label,text\nx\tyes\ny\tno\nz\tyes\n"))).isEqualTo(List.of("no", "yes"));
    assertThat(LabelledCorpus.labelsIn(write("x\t1\ny\t0\nz\t2\n"))).isEqualTo(List.of("0", "1", "2"));
    Path one = write("x\tyes\ny\tyes\n");
    assertThatThrownBy(() -> LabelledCorpus.labelsIn(one)).hasMessageContaining("only one label");
  }
}
