package io.headscope.app.gui.screen;

import io.headscope.analysis.corpus.Corpus;
import io.headscope.analysis.corpus.CorpusReader;
import java.nio.file.Path;
import java.util.List;

/** Where a corpus comes from: a file the user opened, or one shipped with HeadScope. */
public record CorpusSource(String label, Path file, String resource) {
  /** The corpora on the class path (resources module), in the order the menu lists them. */
  public static final List<CorpusSource> SHIPPED = List.of(
      shipped("english-sentences.txt"), shipped("english-pairs.txt"),
      shipped("masked-sentences.txt"), shipped("multilingual.txt"));

  public static CorpusSource shipped(String name) {
    return new CorpusSource("shipped: " + name, null, "/headscope/corpus/" + name);
  }

  public static CorpusSource file(Path p) {
    return new CorpusSource("file: " + p.getFileName(), p, null);
  }

  /** Reads it with the corpus reader every command uses (blank and malformed lines are skipped). */
  public Corpus read() {
    return file != null ? CorpusReader.read(file) : CorpusReader.resource(resource);
  }

  @Override
  public String toString() {
    return label;
  }
}
