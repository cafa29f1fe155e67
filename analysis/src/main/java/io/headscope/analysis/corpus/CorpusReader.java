package io.headscope.analysis.corpus;

import io.headscope.model.core.HeadScopeException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the corpus format: UTF-8 text, one input per line, a TAB between the two sentences of a pair.
 * Blank, malformed and over-long lines are skipped and reported with their line numbers; only a file
 * that cannot be read at all, or has no usable line, is an error.
 */
public final class CorpusReader {
  /**
   * Lines longer than this many characters are skipped before tokenizing: far beyond any model's 512
   * positions, and a guard against feeding a binary or minified file to the tokenizer.
   */
  public static final int MAX_CHARS = 10_000;

  private final int maxChars;

  public CorpusReader(int maxChars) {
    this.maxChars = maxChars;
  }

  public CorpusReader() {
    this(MAX_CHARS);
  }

  public static Corpus read(Path file) {
    return new CorpusReader().readFile(file);
  }

  /** A corpus shipped on the classpath, e.g. {@code /headscope/corpus/english-pairs.txt}. */
  public static Corpus resource(String name) {
    InputStream in = CorpusReader.class.getResourceAsStream(name);
    if (in == null) {
      throw new HeadScopeException("The shipped corpus " + name + " is missing from the class path.");
    }
    return new CorpusReader().all(CorpusLines.of(name, in, MAX_CHARS));
  }

  /** Reads a whole file into memory (for the app and small corpora; the CLI streams with {@link CorpusLines}). */
  public Corpus readFile(Path file) {
    return all(CorpusLines.open(file, maxChars));
  }

  /** Parses lines; public for text that does not come from a file (tests, the app's editor). */
  public Corpus parse(String name, BufferedReader lines) throws IOException {
    StringBuilder text = new StringBuilder();
    char[] buf = new char[8192];
    for (int n; (n = lines.read(buf)) > 0; ) {
      text.append(buf, 0, n);
    }
    return all(CorpusLines.of(name, new java.io.ByteArrayInputStream(text.toString().getBytes(StandardCharsets.UTF_8)),
        maxChars));
  }

  private Corpus all(CorpusLines lines) {
    try (lines) {
      List<CorpusInput> inputs = new ArrayList<>();
      for (CorpusInput in; (in = lines.next()) != null; ) {
        inputs.add(in);
      }
      List<CorpusProblem> problems = lines.problems();
      if (inputs.isEmpty()) {
        throw new HeadScopeException("The corpus " + lines.name() + " has no usable input"
            + (problems.isEmpty() ? " (it is empty)." : " (" + lines.problemCount() + " lines skipped, first: "
                + problems.get(0) + ")."));
      }
      return new Corpus(lines.name(), inputs, problems);
    }
  }
}
