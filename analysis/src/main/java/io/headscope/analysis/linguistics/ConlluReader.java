package io.headscope.analysis.linguistics;

import io.headscope.model.core.HeadScopeException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads Universal Dependencies CoNLL-U files as real treebanks write them: comment lines
 * ({@code # text}, {@code # newdoc id}, {@code # sent_id}, others), multiword-token ranges
 * ({@code 3-4 don't}: skipped, the tree is over syntactic words), empty nodes ({@code 8.1}: skipped),
 * relation subtypes kept as written, and coreference as CorefUD and UD English GUM write it in MISC
 * ({@code Entity=(e1-person-1}, {@code e1)}, {@code (e2-object-1)}, several on one word).
 *
 * <p>A malformed line makes its sentence unusable: the sentence is skipped and reported with the
 * file, the line number and the problem; only a file that cannot be read, or has no usable
 * sentence, is an error.
 */
public final class ConlluReader {
  private ConlluReader() {}

  public static Treebank read(Path file) {
    if (Files.isDirectory(file)) {
      throw new HeadScopeException(file + " is a folder; give a CoNLL-U file.");
    }
    try (BufferedReader r = new BufferedReader(new InputStreamReader(Files.newInputStream(file),
        StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)))) {
      return parse(file.getFileName().toString(), r);
    } catch (NoSuchFileException e) {
      throw new HeadScopeException("The treebank " + file + " does not exist.", e);
    } catch (CharacterCodingException e) {
      throw new HeadScopeException("The treebank " + file + " is not UTF-8 text.", e);
    } catch (IOException e) {
      throw new HeadScopeException("Cannot read the treebank " + file + ": " + e.getMessage() + ".", e);
    }
  }

  /** Parses CoNLL-U text; {@code name} is used in messages and as the document of sentences before any {@code # newdoc}. */
  public static Treebank parse(String name, BufferedReader in) throws IOException {
    List<Sentence> sentences = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    Block block = new Block(name);
    int number = 0;
    for (String raw; (raw = in.readLine()) != null; ) {
      number++;
      String line = number == 1 && raw.startsWith("\uFEFF") ? raw.substring(1) : raw;
      if (line.isBlank()) {
        block.finish(sentences, skipped);
        block = block.next();
        continue;
      }
      block.add(line, number);
    }
    block.finish(sentences, skipped);
    if (sentences.isEmpty()) {
      throw new HeadScopeException("The treebank " + name + " has no usable sentence"
          + (skipped.isEmpty() ? " (it is empty)." : " (" + skipped.size() + " skipped, first: " + skipped.get(0) + ")."));
    }
    return new Treebank(name, sentences, skipped);
  }

  /** The lines of one sentence, parsed as they come; the first problem makes it unusable. */
  private static final class Block {
    private final String file;
    private String document;
    private String sentId;
    private int firstLine;
    private String problem;
    private final List<Word> words = new ArrayList<>();
    private final List<String> misc = new ArrayList<>();
    private int counted;

    Block(String file) {
      this(file, file, 0);
    }

    private Block(String file, String document, int counted) {
      this.file = file;
      this.document = document;
      this.counted = counted;
    }

    Block next() {
      return new Block(file, document, counted);
    }

    void add(String line, int number) {
      if (firstLine == 0) {
        firstLine = number;
      }
      if (line.startsWith("#")) {
        String c = line.substring(1).strip();
        if (c.startsWith("newdoc")) {
          int eq = c.indexOf('=');
          document = eq < 0 ? file + "#" + number : c.substring(eq + 1).strip();
        } else if (c.startsWith("sent_id")) {
          int eq = c.indexOf('=');
          sentId = eq < 0 ? null : c.substring(eq + 1).strip();
        }
        return;
      }
      if (problem != null) {
        return;
      }
      String[] f = line.split("\t", -1);
      if (f.length != 10) {
        problem = fail(number, f.length + " tab-separated fields instead of 10");
        return;
      }
      String id = f[0];
      if (id.contains("-") || id.contains(".")) {
        return; // a multiword-token range or an empty node: not a word of the tree
      }
      int n;
      int head;
      try {
        n = Integer.parseInt(id);
        head = Integer.parseInt(f[6]);
      } catch (NumberFormatException e) {
        problem = fail(number, "ID \"" + id + "\" or HEAD \"" + f[6] + "\" is not a number");
        return;
      }
      if (n != words.size() + 1) {
        problem = fail(number, "word ID " + n + " where " + (words.size() + 1) + " was expected");
        return;
      }
      if (head < 0 || f[7].isBlank() || f[7].equals("_")) {
        problem = fail(number, "HEAD " + head + " / DEPREL \"" + f[7] + "\" is not a dependency");
        return;
      }
      if (head == n) {
        problem = fail(number, "word " + n + " has itself as HEAD, which no dependency tree has");
        return;
      }
      words.add(new Word(n, f[1], f[3], head, f[7]));
      misc.add(f[9]);
    }

    private String fail(int number, String what) {
      return file + ":" + number + ": " + what;
    }

    void finish(List<Sentence> out, List<String> skipped) {
      if (firstLine == 0) {
        return;
      }
      if (words.isEmpty() && problem == null) {
        return; // comments only (e.g. a # newdoc line between blank lines)
      }
      counted++;
      if (problem == null) {
        for (Word w : words) {
          if (w.head() > words.size()) {
            problem = file + ":" + firstLine + ": word " + w.id() + " has HEAD " + w.head() + " outside the sentence";
            break;
          }
        }
      }
      List<Mention> mentions = List.of();
      if (problem == null) {
        try {
          mentions = mentions();
        } catch (IllegalArgumentException e) {
          problem = file + ":" + firstLine + ": " + e.getMessage();
        }
      }
      if (problem != null) {
        skipped.add(problem + "; sentence skipped");
        return;
      }
      out.add(new Sentence(document, sentId != null ? sentId : String.valueOf(counted), firstLine, words, mentions));
    }

    /** The sentence's {@code Entity=} spans (a bracket left open at its end is an error). */
    private List<Mention> mentions() {
      Map<String, Deque<Integer>> open = new HashMap<>();
      List<int[]> spans = new ArrayList<>();
      List<String> entities = new ArrayList<>();
      for (int i = 0; i < words.size(); i++) {
        String entity = entityField(misc.get(i));
        if (entity == null) {
          continue;
        }
        int wordId = i + 1;
        int p = 0;
        while (p < entity.length()) {
          char c = entity.charAt(p);
          if (c == '(') {
            int q = p + 1;
            while (q < entity.length() && entity.charAt(q) != '(' && entity.charAt(q) != ')') {
              q++;
            }
            String content = entity.substring(p + 1, q);
            String eid = content.contains("-") ? content.substring(0, content.indexOf('-')) : content;
            if (eid.isEmpty()) {
              throw new IllegalArgumentException("an Entity bracket without an id in \"" + entity + "\"");
            }
            if (q < entity.length() && entity.charAt(q) == ')') {
              spans.add(new int[] {wordId, wordId});
              entities.add(eid);
              p = q + 1;
            } else {
              open.computeIfAbsent(eid, k -> new ArrayDeque<>()).push(wordId);
              p = q;
            }
          } else {
            int q = entity.indexOf(')', p);
            if (q < 0) {
              throw new IllegalArgumentException("cannot read Entity=\"" + entity + "\" on word " + wordId);
            }
            String eid = entity.substring(p, q);
            Deque<Integer> starts = open.get(eid);
            if (starts == null || starts.isEmpty()) {
              throw new IllegalArgumentException("Entity " + eid + " closes on word " + wordId + " but was not opened");
            }
            spans.add(new int[] {starts.pop(), wordId});
            entities.add(eid);
            p = q + 1;
          }
        }
      }
      for (Map.Entry<String, Deque<Integer>> e : open.entrySet()) {
        if (!e.getValue().isEmpty()) {
          throw new IllegalArgumentException("Entity " + e.getKey() + " opens on word " + e.getValue().peek()
              + " and does not close in its sentence");
        }
      }
      List<Mention> out = new ArrayList<>();
      for (int k = 0; k < spans.size(); k++) {
        int[] s = spans.get(k);
        out.add(new Mention(entities.get(k), s[0], s[1], headOf(s[0], s[1])));
      }
      out.sort(java.util.Comparator.comparingInt(Mention::start).thenComparingInt(Mention::end));
      return out;
    }

    /** The first word of the span whose syntactic head lies outside it. */
    private int headOf(int start, int end) {
      for (int id = start; id <= end; id++) {
        int h = words.get(id - 1).head();
        if (h < start || h > end) {
          return id;
        }
      }
      return start; // a span that is its own tree cannot happen in a tree; keep the first word
    }

    private static String entityField(String misc) {
      if (misc == null || misc.equals("_")) {
        return null;
      }
      for (String part : misc.split("\\|")) {
        if (part.startsWith("Entity=")) {
          return part.substring("Entity=".length());
        }
      }
      return null;
    }
  }
}
