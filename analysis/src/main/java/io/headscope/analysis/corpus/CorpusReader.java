package io.headscope.analysis.corpus;

import io.headscope.model.HeadScopeException;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a corpus file: UTF-8, one input per line, a TAB between the two sentences of a pair; blank
 * lines are skipped. (A small reader for the ablation commands; to be merged with the analysis
 * helper's corpus reader when both are in main.)
 */
public final class CorpusReader {
  private CorpusReader() {}

  /**
   * One input.
   *
   * @param line the 1-based line number in the file, for messages
   * @param b the second sentence, or null for a single sentence
   */
  public record Line(int line, String a, String b) {}

  public static List<Line> read(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new HeadScopeException("The corpus file " + file + " does not exist.");
    } catch (CharacterCodingException e) {
      throw new HeadScopeException("The corpus file " + file + " is not UTF-8 text.");
    } catch (IOException e) {
      throw new HeadScopeException("Cannot read the corpus file " + file + ": " + e.getMessage() + ".");
    }
    return parse(lines, file.toString());
  }

  static List<Line> parse(List<String> lines, String name) {
    List<Line> out = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String s = lines.get(i);
      if (s.isBlank()) {
        continue;
      }
      String[] parts = s.split("\t", -1);
      if (parts.length > 2) {
        throw new HeadScopeException("Line " + (i + 1) + " of " + name
            + " has more than one TAB: write one sentence, or two separated by a single TAB.");
      }
      if (parts[0].isBlank() || (parts.length == 2 && parts[1].isBlank())) {
        throw new HeadScopeException("Line " + (i + 1) + " of " + name + " has an empty sentence beside its TAB.");
      }
      out.add(new Line(i + 1, parts[0].strip(), parts.length == 2 ? parts[1].strip() : null));
    }
    if (out.isEmpty()) {
      throw new HeadScopeException("The corpus file " + name + " has no sentences.");
    }
    return out;
  }
}
