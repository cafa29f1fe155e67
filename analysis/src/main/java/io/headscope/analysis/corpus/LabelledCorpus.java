package io.headscope.analysis.corpus;

import io.headscope.model.core.HeadScopeException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * A labelled corpus: the corpus format plus a gold label as the last TAB-separated field,
 * {@code text<TAB>label} or {@code text_a<TAB>text_b<TAB>label}. Labels are written as the model's
 * {@code id2label} names (exactly, else ignoring case) or as integer ids. An optional header line
 * ({@code text<TAB>label}, {@code sentence,label}, ...: a first line whose last field is "label") is
 * skipped. A blank line, a missing field or a label the model does not know is reported with its line
 * number and skipped, never fatal.
 *
 * @param name the file name, for messages
 * @param labels the class names in id order
 * @param inputs the usable lines
 * @param problems the first {@link CorpusLines#KEPT_PROBLEMS} skipped lines with their reasons
 * @param problemCount how many lines were skipped in all
 */
public record LabelledCorpus(String name, List<String> labels, List<LabelledInput> inputs,
    List<CorpusProblem> problems, int problemCount) {

  private static final Set<String> HEADER_LABELS = Set.of("label", "labels", "gold_label", "gold", "class", "y");

  public LabelledCorpus {
    labels = List.copyOf(labels);
    inputs = List.copyOf(inputs);
    problems = List.copyOf(problems);
  }

  /**
   * Reads a labelled file for a model with these class names (its {@code id2label}).
   *
   * @throws HeadScopeException when the file cannot be read or has no usable line
   */
  public static LabelledCorpus read(Path file, List<String> labels) {
    return read(file, labels, Shard.ALL);
  }

  /** One shard's labelled inputs (the shards together must have some; one shard may have none). */
  public static LabelledCorpus read(Path file, List<String> labels, Shard shard) {
    if (labels.isEmpty()) {
      throw new HeadScopeException("The model has no sequence-classification head (no labels), so a labelled "
          + "corpus cannot be scored with it; give a fine-tuned classifier (./headscope finetune makes one).");
    }
    List<LabelledInput> inputs = new ArrayList<>();
    try (CorpusLines lines = CorpusLines.open(file, CorpusReader.MAX_CHARS).only(shard)) {
      for (String line; (line = lines.nextLine()) != null; ) {
        LabelledInput in = parse(lines, line, labels);
        if (in != null) {
          inputs.add(in);
        }
      }
      LabelledCorpus c = new LabelledCorpus(lines.name(), labels, inputs, lines.problems(), lines.problemCount());
      if (inputs.isEmpty() && shard.isAll()) {
        throw new HeadScopeException("The labelled corpus " + file + " has no usable line (text<TAB>label or "
            + "text_a<TAB>text_b<TAB>label; " + c.problemCount + " skipped"
            + (c.problems.isEmpty() ? "" : ", first: " + c.problems.get(0)) + ").");
      }
      return c;
    }
  }

  /**
   * The class names a labelled file uses, for a model that has none yet (fine-tuning a base model):
   * integer labels become {@code 0..max} in order, names are sorted. Reads the whole file.
   */
  public static List<String> labelsIn(Path file) {
    Set<String> names = new TreeSet<>();
    int maxId = -1;
    boolean allIds = true;
    try (CorpusLines lines = CorpusLines.open(file, CorpusReader.MAX_CHARS)) {
      for (String line; (line = lines.nextLine()) != null; ) {
        String[] f = line.split("\t", -1);
        if (line.isBlank() || f.length < 2 || f.length > 3) {
          continue;
        }
        String label = f[f.length - 1].strip();
        if (label.isEmpty() || (lines.lineNumber() == 1 && isHeader(line, List.of()))) {
          continue;
        }
        names.add(label);
        Integer id = integer(label);
        if (id == null) {
          allIds = false;
        } else {
          maxId = Math.max(maxId, id);
        }
      }
    }
    if (names.isEmpty()) {
      throw new HeadScopeException("The labelled corpus " + file + " has no usable line (text<TAB>label or "
          + "text_a<TAB>text_b<TAB>label).");
    }
    if (allIds) {
      List<String> ids = new ArrayList<>();
      for (int i = 0; i <= maxId; i++) {
        ids.add(Integer.toString(i));
      }
      return ids;
    }
    if (names.size() < 2) {
      throw new HeadScopeException("The labelled corpus " + file + " has only one label (" + names.iterator().next()
          + "); a classifier needs at least two.");
    }
    return List.copyOf(names);
  }

  /** The index of a written label: a class name (exactly, else ignoring case) or an integer id; -1 if unknown. */
  public static int labelIndex(String written, List<String> labels) {
    int exact = labels.indexOf(written);
    if (exact >= 0) {
      return exact;
    }
    for (int i = 0; i < labels.size(); i++) {
      if (labels.get(i).equalsIgnoreCase(written)) {
        return i;
      }
    }
    Integer id = integer(written);
    return id != null && id < labels.size() ? id : -1;
  }

  private static LabelledInput parse(CorpusLines lines, String line, List<String> labels) {
    int number = lines.lineNumber();
    if (line.isBlank()) {
      lines.report(number, "blank line; skipped");
      return null;
    }
    if (number == 1 && isHeader(line, labels)) {
      return null; // a header line, not an input
    }
    String[] f = line.split("\t", -1);
    if (f.length < 2) {
      lines.report(number, "no label: a labelled line is text<TAB>label or text_a<TAB>text_b<TAB>label; skipped");
      return null;
    }
    if (f.length > 3) {
      lines.report(number, (f.length - 1) + " tabs, but a labelled line has at most two (text_a, text_b, label); "
          + "skipped");
      return null;
    }
    String written = f[f.length - 1].strip();
    if (written.isEmpty()) {
      lines.report(number, "the label is empty; skipped");
      return null;
    }
    String a = f[0].strip();
    String b = f.length == 3 ? f[1].strip() : null;
    if (a.isEmpty() || (b != null && b.isEmpty())) {
      lines.report(number, (b == null ? "the text is empty" : "one side of the pair is empty") + "; skipped");
      return null;
    }
    int label = labelIndex(written, labels);
    if (label < 0) {
      lines.report(number, "the label \"" + written + "\" is not one of the model's (" + String.join(", ", labels)
          + ", or 0.." + (labels.size() - 1) + "); skipped");
      return null;
    }
    return new LabelledInput(new CorpusInput(number, a, b), label);
  }

  /**
   * A first line such as {@code text<TAB>label} or {@code sentence,label}: its last field (by TAB, or by
   * comma when it has no TAB) is a column name such as "label" that is not itself one of the labels.
   */
  private static boolean isHeader(String line, List<String> labels) {
    String[] fields = line.contains("\t") ? line.split("\t", -1) : line.split(",", -1);
    String last = fields[fields.length - 1].strip();
    return fields.length >= 2 && HEADER_LABELS.contains(last.toLowerCase(Locale.ROOT))
        && labelIndex(last, labels) < 0;
  }

  private static Integer integer(String s) {
    if (s.isEmpty() || s.length() > 9) {
      return null;
    }
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return null;
      }
    }
    return Integer.parseInt(s);
  }
}
