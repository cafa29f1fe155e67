package io.headscope.analysis.heads;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The hand-labelled maps of resources/.../headscope/labels/ (see its README): the first set
 * ({@code kovaleva-labels.tsv}, 240 maps, one labeller), the second ({@code kovaleva-labels-2.tsv},
 * 704 maps of up to 120 wordpieces, two independent labellers and a consensus; its disputed maps
 * re-adjudicated under the set-3 guidelines in {@code set2-readjudicated.tsv}) and the third
 * ({@code kovaleva-labels-3.tsv}, 440 maps of 127-492 wordpieces, two blind labellers and an adjudicator).
 * Sets 1 and 2 were labelled again under the written definition ({@code relabel-12/}: two blind labellers
 * and an adjudicator); {@link #loadAll} uses those labels, {@link #loadAllFirstLabels} the earlier ones.
 */
record LabelledMaps(List<Entry> entries) {
  static final String FIRST = "/headscope/labels/kovaleva-labels.tsv";
  static final String SECOND = "/headscope/labels/kovaleva-labels-2.tsv";
  static final String SECOND_READJUDICATED = "/headscope/labels/set2-readjudicated.tsv";
  static final String THIRD = "/headscope/labels/kovaleva-labels-3.tsv";
  static final String THIRD_INPUTS = "/headscope/labels/inputs-3.tsv";
  /** Sets 1 and 2 labelled again, blind, under the written definition (GUIDELINES-3.md): two labellers and an adjudicator. */
  static final String RELABEL = "/headscope/labels/relabel-12/";

  /**
   * One labelled map; layer and head 0-based here (1-based in the files).
   *
   * @param label the consensus, or the only label (set 1 with its first labels)
   * @param borderline whether any labeller marked it borderline, or it was disputed
   * @param first the first labeller's label (null where one labeller worked)
   * @param second the second labeller's label (null where one labeller worked)
   * @param disputed whether the two labellers disagreed
   * @param set which set, 1-3
   */
  record Entry(String id, String a, String b, int layer, int head, HeadPattern label, boolean borderline,
      HeadPattern first, HeadPattern second, boolean disputed, int set) {
    int number() {
      return Integer.parseInt(id.substring(1));
    }

    /** The input the map came from: maps of one input always fall in the same fold. */
    String input() {
      return a + "\t" + (b == null ? "" : b);
    }

    boolean twoLabellers() {
      return first != null;
    }
  }

  /**
   * All three sets under the written definition: sets 1 and 2 with the labels they were given again
   * ({@code relabel-12/}, two blind labellers and an adjudicator), set 3 as labelled. What the shipped
   * classifier is trained and measured on.
   */
  static LabelledMaps loadAll() throws IOException {
    List<Entry> earlier = new ArrayList<>(readFirst());
    earlier.addAll(readSecond());
    List<Entry> all = relabelled(earlier);
    all.addAll(readThird());
    return new LabelledMaps(all);
  }

  /** All three sets with the labels sets 1 and 2 had before they were labelled again (set 2 re-adjudicated). */
  static LabelledMaps loadAllFirstLabels() throws IOException {
    List<Entry> all = new ArrayList<>(readFirst());
    all.addAll(readSecond());
    all.addAll(readThird());
    return new LabelledMaps(all);
  }

  /**
   * The same maps with the labels of {@code relabel-12/}: the two labellers' label where they agree, else the
   * adjudicator's; borderline when either labeller said so or they disagreed.
   */
  private static List<Entry> relabelled(List<Entry> earlier) throws IOException {
    java.util.Map<String, String> originalOf = new java.util.HashMap<>();
    java.util.Map<String, String> headOf = new java.util.HashMap<>();
    for (String[] f : rows(RELABEL + "manifest.tsv", "id\tset\toriginal_id\tlayer\thead")) {
      originalOf.put(f[0], f[2]);
      headOf.put(f[2], f[3] + "-" + f[4]);
    }
    java.util.Map<String, String[]> a = byId(RELABEL + "labels-A.tsv", "id\tlabel\tconfidence");
    java.util.Map<String, String[]> b = byId(RELABEL + "labels-B.tsv", "id\tlabel\tconfidence");
    java.util.Map<String, String[]> adjudicated = byId(RELABEL + "adjudicated.tsv", "id\tlabel\tconfidence");
    java.util.Map<String, String> relabelOf = new java.util.HashMap<>();
    originalOf.forEach((r, original) -> relabelOf.put(original, r));
    List<Entry> out = new ArrayList<>();
    for (Entry e : earlier) {
      String r = relabelOf.get(e.id());
      if (r == null) {
        throw new IllegalStateException(e.id() + " was not labelled again");
      }
      if (!headOf.get(e.id()).equals((e.layer() + 1) + "-" + (e.head() + 1))) {
        throw new IllegalStateException(r + " is head " + headOf.get(e.id()) + ", " + e.id() + " another");
      }
      HeadPattern first = HeadPattern.parse(a.get(r)[1]);
      HeadPattern second = HeadPattern.parse(b.get(r)[1]);
      boolean disputed = first != second;
      if (disputed && !adjudicated.containsKey(r)) {
        throw new IllegalStateException(r + " is disputed and not adjudicated");
      }
      HeadPattern label = disputed ? HeadPattern.parse(adjudicated.get(r)[1]) : first;
      boolean borderline = disputed || !a.get(r)[2].equals("sure") || !b.get(r)[2].equals("sure");
      out.add(new Entry(e.id(), e.a(), e.b(), e.layer(), e.head(), label, borderline, first, second, disputed, e.set()));
    }
    return out;
  }

  private static java.util.Map<String, String[]> byId(String resource, String headerStart) throws IOException {
    java.util.Map<String, String[]> out = new java.util.HashMap<>();
    for (String[] f : rows(resource, headerStart)) {
      out.put(f[0], f);
    }
    return out;
  }

  private static List<Entry> readFirst() throws IOException {
    List<Entry> out = new ArrayList<>();
    for (String[] f : rows(FIRST, "id\tkind\ttext_a\ttext_b\tlayer\thead\tlabel")) {
      out.add(new Entry(f[0], f[2], f[1].equals("pair") ? f[3] : null, Integer.parseInt(f[4]) - 1,
          Integer.parseInt(f[5]) - 1, HeadPattern.parse(f[6]), f.length > 7 && f[7].startsWith("borderline"),
          null, null, false, 1));
    }
    return out;
  }

  private static List<Entry> readSecond() throws IOException {
    List<Entry> out = new ArrayList<>();
    String header = "id\tkind\ttext_a\ttext_b\tlayer\thead\ttokens\tchosen\tlabel_1\tconfidence_1\tlabeller_1\t"
        + "label_2\tconfidence_2\tlabeller_2\tconsensus\tconsensus_confidence\tdisputed";
    java.util.Map<String, HeadPattern> readjudicated = new java.util.HashMap<>();
    for (String[] f : rows(SECOND_READJUDICATED, "id\tlabel_1\tlabel_2\told_consensus\tnew_consensus")) {
      readjudicated.put(f[0], HeadPattern.parse(f[4]));
    }
    for (String[] f : rows(SECOND, header)) {
      boolean disputed = f[16].equals("yes");
      boolean borderline = disputed || !f[9].equals("sure") || !f[12].equals("sure");
      HeadPattern consensus = readjudicated.getOrDefault(f[0], HeadPattern.parse(f[14]));
      out.add(new Entry(f[0], f[2], f[1].equals("pair") ? f[3] : null, Integer.parseInt(f[4]) - 1,
          Integer.parseInt(f[5]) - 1, consensus, borderline, HeadPattern.parse(f[8]),
          HeadPattern.parse(f[11]), disputed, 2));
    }
    if (readjudicated.size() != 49) {
      throw new IllegalStateException(readjudicated.size() + " re-adjudicated maps; the file holds 49");
    }
    return out;
  }

  /** Set 3: the labels name an input of {@code inputs-3.tsv} (long texts, not repeated per map). */
  private static List<Entry> readThird() throws IOException {
    java.util.Map<String, String[]> inputs = new java.util.HashMap<>();
    for (String[] f : rows(THIRD_INPUTS, "id\tkind\ttext_a\ttext_b")) {
      inputs.put(f[0], f);
    }
    List<Entry> out = new ArrayList<>();
    String header = "id\tinput\tkind\tlayer\thead\ttokens\tlabel_1\tconfidence_1\tlabeller_1\tlabel_2\t"
        + "confidence_2\tlabeller_2\tconsensus\tconsensus_confidence\tdisputed";
    for (String[] f : rows(THIRD, header)) {
      String[] in = inputs.get(f[1]);
      boolean pair = in[1].equals("pair");
      boolean disputed = f[14].equals("yes");
      boolean borderline = disputed || !f[7].equals("sure") || !f[10].equals("sure");
      out.add(new Entry(f[0], in[2], pair ? in[3] : null, Integer.parseInt(f[3]) - 1, Integer.parseInt(f[4]) - 1,
          HeadPattern.parse(f[12]), borderline, HeadPattern.parse(f[6]), HeadPattern.parse(f[9]), disputed, 3));
    }
    return out;
  }

  private static List<String[]> rows(String resource, String headerStart) throws IOException {
    List<String[]> out = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(
        LabelledMaps.class.getResourceAsStream(resource), StandardCharsets.UTF_8))) {
      String header = r.readLine();
      if (!header.startsWith(headerStart)) {
        throw new IllegalStateException("unexpected header in " + resource + ": " + header);
      }
      for (String line; (line = r.readLine()) != null; ) {
        if (!line.isBlank()) {
          out.add(line.split("\t", -1));
        }
      }
    }
    return out;
  }
}
