package io.headscope.analysis.linguistics;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.BertModel;
import io.headscope.model.testing.TinyBert;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hand-annotated test treebanks (src/test/resources/treebanks, written for HeadScope) through the
 * reader and the scoring on a small model: counts follow the files, every word is scored once.
 */
class TreebankFilesTest {
  @TempDir Path dir;

  static Path copy(Path dir, String name) throws IOException {
    try (InputStream in = TreebankFilesTest.class.getResourceAsStream("/treebanks/" + name)) {
      return Files.write(dir.resolve(name), in.readAllBytes());
    }
  }

  @Test
  void theQuirksFileReadsWithoutSkippingAndKeepsSyntacticWordsOnly() throws IOException {
    Treebank t = ConlluReader.read(copy(dir, "quirks.conllu"));
    assertThat(t.skipped()).isEmpty();
    assertThat(t.sentences()).hasSize(7);
    assertThat(t.sentences().stream().mapToInt(Sentence::size).sum()).isEqualTo(64);
    assertThat(t.sentences().stream().flatMap(s -> s.words().stream()).map(Word::form)).contains("Zürich", "n't");
  }

  @Test
  void theCorefFileHasItsDocumentsAndMentions() throws IOException {
    Treebank t = ConlluReader.read(copy(dir, "coref.conllu"));
    assertThat(t.skipped()).isEmpty();
    assertThat(t.sentences().stream().map(Sentence::document).distinct()).hasSize(6);
    assertThat(t.sentences().stream().mapToInt(s -> s.mentions().size()).sum()).isEqualTo(120);
  }

  @Test
  void syntaxAndCorefRunOnASmallModel() throws IOException {
    Treebank syntax = ConlluReader.read(copy(dir, "syntax.conllu"));
    Treebank coref = ConlluReader.read(copy(dir, "coref.conllu"));
    try (BertModel model = BertModel.load(TinyBert.create(2, 2, 7).writeTo(dir.resolve("tiny")))) {
      SyntaxAnalysis.Result r = SyntaxAnalysis.run(model, syntax, 0, false, WordMaps.Progress.NONE, () -> false);
      assertThat(r.sentences() + r.tooLong()).isEqualTo(75);
      DependencyHeads.Best all = r.heads().best().get(0);
      assertThat(all.relation()).isEqualTo("all");
      assertThat(all.count()).isEqualTo(r.words());
      CorefHeads.Result c = CorefHeads.run(model, coref, 64, WordMaps.Progress.NONE, () -> false);
      assertThat(c.mentions()[0]).isEqualTo(c.mentions()[1] + c.mentions()[2] + c.mentions()[3]);
      // the file has 49 pronouns with an earlier antecedent in their document (README); windows of 64
      // wordpieces cut some antecedents off, so fewer, but some, are evaluated
      assertThat(c.mentions()[1]).as("pronouns evaluated").isBetween(1L, 49L);
    }
  }
}
