package io.headscope.analysis.corpus;

import io.headscope.model.HeadScopeException;
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
    try (in) {
      return new CorpusReader().parse(name, new BufferedReader(new InputStreamReader(in, decoder())));
    } catch (IOException e) {
      throw new HeadScopeException("Cannot read " + name + ": " + e.getMessage() + ".", e);
    }
  }

  public Corpus readFile(Path file) {
    if (Files.isDirectory(file)) {
      throw new HeadScopeException(file + " is a folder; give a corpus file (one input per line).");
    }
    try (BufferedReader r = new BufferedReader(new InputStreamReader(Files.newInputStream(file), decoder()))) {
      return parse(file.toString(), r);
    } catch (NoSuchFileException e) {
      throw new HeadScopeException("The corpus file " + file + " does not exist.", e);
    } catch (CharacterCodingException e) {
      throw new HeadScopeException("The corpus file " + file + " is not UTF-8 text.", e);
    } catch (IOException e) {
      throw new HeadScopeException("Cannot read the corpus file " + file + ": " + e.getMessage() + ".", e);
    }
  }

  /** Parses lines; public for text that does not come from a file (tests, the app's editor). */
  public Corpus parse(String name, BufferedReader lines) throws IOException {
    List<CorpusInput> inputs = new ArrayList<>();
    List<CorpusProblem> problems = new ArrayList<>();
    int number = 0;
    for (String raw; (raw = lines.readLine()) != null; ) {
      number++;
      String line = number == 1 && raw.startsWith("\uFEFF") ? raw.substring(1) : raw;
      if (line.isBlank()) {
        problems.add(new CorpusProblem(number, "blank line; skipped"));
        continue;
      }
      if (line.length() > maxChars) {
        problems.add(new CorpusProblem(number,
            "longer than " + maxChars + " characters (" + line.length() + "); skipped"));
        continue;
      }
      String[] parts = line.split("\t", -1);
      if (parts.length > 2) {
        problems.add(new CorpusProblem(number,
            (parts.length - 1) + " tabs, but a pair has one tab between its two sentences; skipped"));
        continue;
      }
      String a = parts[0].strip();
      String b = parts.length == 2 ? parts[1].strip() : null;
      if (a.isEmpty() || (b != null && b.isEmpty())) {
        problems.add(new CorpusProblem(number,
            "one side of the pair is empty; skipped"));
        continue;
      }
      inputs.add(new CorpusInput(number, a, b));
    }
    if (inputs.isEmpty()) {
      throw new HeadScopeException("The corpus " + name + " has no usable input"
          + (problems.isEmpty() ? " (it is empty)." : " (" + problems.size() + " lines skipped, first: "
              + problems.get(0) + ")."));
    }
    return new Corpus(name, inputs, problems);
  }

  private static java.nio.charset.CharsetDecoder decoder() {
    return StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
  }
}
