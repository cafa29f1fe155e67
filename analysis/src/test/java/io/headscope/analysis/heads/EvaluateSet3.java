package io.headscope.analysis.heads;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ProgressListener;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The shipped classifier against set 3 (maps of 127-492 wordpieces, two blind labellers and an adjudicator;
 * resources/.../labels/README.md): never trained on, so every map is held out. Prints, per length bucket,
 * the labellers' own agreement, the learned model's and the rule's agreement with the consensus (all maps
 * and maps both labellers called sure), per-category recall and the confusion matrix. A main class:
 * {@code java ... io.headscope.analysis.heads.EvaluateSet3 [labels.tsv]}.
 */
public final class EvaluateSet3 {
  static final String LABELS = "/headscope/labels/kovaleva-labels-3.tsv";
  static final String INPUTS = "/headscope/labels/inputs-3.tsv";

  record Row(String id, String input, int layer, int head, int tokens, HeadPattern a, HeadPattern b,
      HeadPattern consensus, boolean sure) {}

  private EvaluateSet3() {}

  static String bucket(int tokens) {
    return tokens <= 128 ? "<=128" : tokens <= 256 ? "129-256" : tokens <= 400 ? "257-400" : "401-512";
  }

  public static void main(String[] args) throws Exception {
    List<String[]> labelRows = args.length > 0 ? read(Files.newInputStream(Path.of(args[0])))
        : read(EvaluateSet3.class.getResourceAsStream(LABELS));
    String[] header = labelRows.remove(0);
    Map<String, Integer> col = new HashMap<>();
    for (int i = 0; i < header.length; i++) {
      col.put(header[i], i);
    }
    List<Row> rows = new ArrayList<>();
    for (String[] f : labelRows) {
      boolean sure = f[col.get("confidence_1")].equals("sure") && f[col.get("confidence_2")].equals("sure")
          && f[col.get("label_1")].equals(f[col.get("label_2")]);
      rows.add(new Row(f[col.get("id")], f[col.get("input")], Integer.parseInt(f[col.get("layer")]) - 1,
          Integer.parseInt(f[col.get("head")]) - 1, Integer.parseInt(f[col.get("tokens")]),
          HeadPattern.parse(f[col.get("label_1")]), HeadPattern.parse(f[col.get("label_2")]),
          HeadPattern.parse(f[col.get("consensus")]), sure));
    }
    Map<String, String[]> inputs = new HashMap<>();
    List<String[]> in = read(EvaluateSet3.class.getResourceAsStream(INPUTS));
    in.remove(0);
    for (String[] f : in) {
      inputs.put(f[0], f);
    }
    Map<String, HeadPattern> learned = new HashMap<>();
    Map<String, HeadPattern> rule = new HashMap<>();
    Map<String, Double> confidence = new HashMap<>();
    HeadClassifier lc = new HeadClassifier(HeadClassifier.Method.LEARNED);
    HeadClassifier rc = new HeadClassifier(HeadClassifier.Method.RULE);
    try (BertModel model = BertModel.load(ModelRepository.standard().resolve("bert-base-uncased", ProgressListener.NONE))) {
      Map<String, List<Row>> byInput = new LinkedHashMap<>();
      rows.forEach(r -> byInput.computeIfAbsent(r.input(), k -> new ArrayList<>()).add(r));
      for (var e : byInput.entrySet()) {
        String[] f = inputs.get(e.getKey());
        String b = f.length > 3 && !f[3].isBlank() ? f[3] : null;
        AttentionTrace t = model.trace(model.encode(f[2], b));
        List<HeadScore> ls = lc.classifyAll(t);
        List<HeadScore> rs = rc.classifyAll(t);
        int heads = t.heads();
        for (Row r : e.getValue()) {
          HeadScore s = ls.get(r.layer() * heads + r.head());
          learned.put(r.id(), s.category());
          confidence.put(r.id(), s.confidence());
          rule.put(r.id(), rs.get(r.layer() * heads + r.head()).category());
        }
      }
    }
    StringBuilder out = new StringBuilder();
    out.append("| bucket | maps | labellers agree | learned vs consensus | rule vs consensus | sure maps | learned on sure |\n");
    out.append("|---|---|---|---|---|---|---|\n");
    List<String> buckets = new ArrayList<>(List.of("<=128", "129-256", "257-400", "401-512", "all"));
    for (String bk : buckets) {
      List<Row> part = rows.stream().filter(r -> bk.equals("all") || bucket(r.tokens()).equals(bk)).toList();
      if (part.isEmpty()) {
        continue;
      }
      long agree = part.stream().filter(r -> r.a() == r.b()).count();
      long lOk = part.stream().filter(r -> learned.get(r.id()) == r.consensus()).count();
      long rOk = part.stream().filter(r -> rule.get(r.id()) == r.consensus()).count();
      List<Row> sure = part.stream().filter(Row::sure).toList();
      long lSure = sure.stream().filter(r -> learned.get(r.id()) == r.consensus()).count();
      out.append(String.format(Locale.ROOT, "| %s | %d | %.3f | %.3f | %.3f | %d | %s |%n", bk, part.size(),
          agree / (double) part.size(), lOk / (double) part.size(), rOk / (double) part.size(), sure.size(),
          sure.isEmpty() ? "-" : String.format(Locale.ROOT, "%.3f", lSure / (double) sure.size())));
    }
    out.append("\nPer category (all maps): consensus count, learned recall, rule recall\n");
    for (HeadPattern p : HeadPattern.values()) {
      List<Row> of = rows.stream().filter(r -> r.consensus() == p).toList();
      out.append(String.format(Locale.ROOT, "- %s: %d, learned %.3f, rule %.3f%n", p.label(), of.size(),
          of.isEmpty() ? Double.NaN : of.stream().filter(r -> learned.get(r.id()) == p).count() / (double) of.size(),
          of.isEmpty() ? Double.NaN : of.stream().filter(r -> rule.get(r.id()) == p).count() / (double) of.size()));
    }
    out.append("\nConfusion, learned (rows: consensus; columns: learned)\n");
    for (HeadPattern p : HeadPattern.values()) {
      Map<HeadPattern, Integer> c = new EnumMap<>(HeadPattern.class);
      rows.stream().filter(r -> r.consensus() == p).forEach(r -> c.merge(learned.get(r.id()), 1, Integer::sum));
      out.append("- ").append(p.label()).append(": ").append(c).append('\n');
    }
    out.append("\nCalibration, learned (confidence bin: maps, agreement with consensus)\n");
    for (double lo = 0.2; lo < 1.0; lo += 0.2) {
      double l0 = lo;
      List<Row> in2 = rows.stream().filter(r -> confidence.get(r.id()) >= l0 && confidence.get(r.id()) < l0 + 0.2
          || l0 + 0.2 >= 1.0 && confidence.get(r.id()) >= l0).toList();
      out.append(String.format(Locale.ROOT, "- [%.1f, %.1f): %d, %s%n", lo, lo + 0.2, in2.size(), in2.isEmpty() ? "-"
          : String.format(Locale.ROOT, "%.3f", in2.stream().filter(r -> learned.get(r.id()) == r.consensus()).count()
              / (double) in2.size())));
    }
    System.out.print(out);
  }

  private static List<String[]> read(InputStream in) throws IOException {
    List<String[]> out = new ArrayList<>();
    try (in) {
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        if (!line.isBlank()) {
          out.add(line.split("\t", -1));
        }
      }
    }
    return out;
  }
}
