package io.headscope.analysis.linguistics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.core.HeadScopeException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every quirk of real CoNLL-U files the reader must handle, on snippets written for the test. */
class ConlluReaderTest {
  @TempDir Path dir;

  static Treebank parse(String text) throws IOException {
    return ConlluReader.parse("t.conllu", new BufferedReader(new StringReader(text.replace('|', '\t').replace("¦", "|"))));
  }

  // columns: ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC, written with | for tabs (¦ is a real |)
  static final String QUIRKS = String.join("\n",
      "# newdoc id = doc1",
      "# sent_id = a1",
      "# text = I don't like Anna's cat.",
      "# a comment of another kind",
      "1|I|I|PRON|_|_|3|nsubj|_|Entity=(e1-person-1)",
      "2-3|don't|_|_|_|_|_|_|_|_",
      "2|do|do|AUX|_|_|4|aux|_|_",
      "3|n't|not|PART|_|_|4|advmod|_|_",
      "4|like|like|VERB|_|_|0|root|_|_",
      "5|Anna|Anna|PROPN|_|_|7|nmod:poss|_|Entity=(e2-object-1(e3-person-1)¦SpaceAfter=No",
      "5.1|x|x|X|_|_|_|_|4:conj|_",
      "6|'s|'s|PART|_|_|5|case|_|_",
      "7|cat|cat|NOUN|_|_|4|obj|_|Entity=e2)¦SpaceAfter=No",
      "8|.|.|PUNCT|_|_|4|punct|_|_",
      "",
      "# sent_id = a2",
      "1|She|she|PRON|_|_|2|nsubj|_|Entity=(e3-person-1)",
      "2|smiled|smile|VERB|_|_|0|root|_|_",
      "",
      "# newdoc id = doc2",
      "# sent_id = b1",
      "1|It|it|PRON|_|_|0|root|_|_",
      "");

  @Test
  void rangesAndEmptyNodesAreNotWordsAndSubtypesAreKept() throws IOException {
    Treebank t = parse(QUIRKS);
    assertThat(t.sentences()).hasSize(3);
    Sentence s = t.sentences().get(0);
    assertThat(s.words()).extracting(Word::form).containsExactly("I", "do", "n't", "like", "Anna", "'s", "cat", ".");
    assertThat(s.word(5).deprel()).isEqualTo("nmod:poss");
    assertThat(s.word(5).universalRelation()).isEqualTo("nmod");
    assertThat(s.id()).isEqualTo("a1");
    assertThat(s.document()).isEqualTo("doc1");
    assertThat(t.sentences().get(2).document()).isEqualTo("doc2");
    assertThat(t.skipped()).isEmpty();
  }

  @Test
  void entityBracketsOpenCloseNestAndStandAlone() throws IOException {
    Sentence s = parse(QUIRKS).sentences().get(0);
    // (e1) on word 1; (e2 opens on 5 and closes on 7; (e3) on word 5 alone
    // in order of start, then end
    assertThat(s.mentions()).containsExactly(
        new Mention("e1", 1, 1, 1),
        new Mention("e3", 5, 5, 5),
        new Mention("e2", 5, 7, 7)); // "Anna 's cat": cat's head (like) lies outside the span
    assertThat(parse(QUIRKS).sentences().get(1).mentions()).containsExactly(new Mention("e3", 1, 1, 1));
  }

  @Test
  void aMalformedLineSkipsItsSentenceNamingFileAndLine() throws IOException {
    String text = String.join("\n",
        "1|A|a|DET|_|_|2|det|_|_",
        "2|dog|dog|NOUN|_|_|0|root|_|_",
        "",
        "1|Bad|bad|ADJ|_|_|0|root|_",
        "",
        "1|Two|two|NUM|_|_|x|nummod|_|_",
        "",
        "1|Open|open|VERB|_|_|0|root|_|Entity=(e9-thing-1",
        "",
        "1|Far|far|ADV|_|_|7|advmod|_|_",
        "");
    Treebank t = parse(text);
    assertThat(t.sentences()).hasSize(1);
    assertThat(t.skipped()).hasSize(4);
    assertThat(t.skipped().get(0)).startsWith("t.conllu:4: 9 tab-separated fields");
    assertThat(t.skipped().get(1)).startsWith("t.conllu:6: ");
    assertThat(t.skipped().get(2)).contains("e9").contains("does not close");
    assertThat(t.skipped().get(3)).contains("HEAD 7 outside the sentence");
  }

  @Test
  void aWordWhoseHeadIsItselfSkipsItsSentence() throws IOException {
    // HEAD -1 and a HEAD past the sentence were refused; a word heading itself was scored as a dependency
    Treebank t = parse(String.join("\n",
        "1|A|a|DET|_|_|1|det|_|_",
        "2|dog|dog|NOUN|_|_|0|root|_|_",
        "",
        "1|The|the|DET|_|_|2|det|_|_",
        "2|cat|cat|NOUN|_|_|0|root|_|_",
        ""));
    assertThat(t.sentences()).hasSize(1);
    assertThat(t.sentences().get(0).words().get(1).form()).isEqualTo("cat");
    assertThat(t.skipped()).singleElement().asString().startsWith("t.conllu:1: ").contains("itself as HEAD");
  }

  @Test
  void aFileWithoutAUsableSentenceOrNotUtf8IsOneSentence() throws IOException {
    assertThatThrownBy(() -> parse("# only a comment\n")).isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("no usable sentence");
    Path latin1 = Files.write(dir.resolve("l.conllu"), new byte[] {'1', '\t', (byte) 0xE9, '\n'});
    assertThatThrownBy(() -> ConlluReader.read(latin1)).hasMessageContaining("not UTF-8");
    assertThatThrownBy(() -> ConlluReader.read(dir.resolve("none.conllu"))).hasMessageContaining("does not exist");
  }
}
