package io.headscope.analysis.heads;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** The hand-labelled maps of resources/.../headscope/labels/kovaleva-labels.tsv (see its README). */
record LabelledMaps(List<Entry> entries) {
  static final String RESOURCE = "/headscope/labels/kovaleva-labels.tsv";

  /** One labelled map; layer and head 0-based here (1-based in the file). */
  record Entry(String id, String a, String b, int layer, int head, HeadPattern label, boolean borderline) {
    int number() {
      return Integer.parseInt(id.substring(1));
    }
  }

  static LabelledMaps load() throws IOException {
    List<Entry> out = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(
        LabelledMaps.class.getResourceAsStream(RESOURCE), StandardCharsets.UTF_8))) {
      String header = r.readLine();
      if (!header.startsWith("id\tkind\ttext_a\ttext_b\tlayer\thead\tlabel")) {
        throw new IllegalStateException("unexpected header " + header);
      }
      for (String line; (line = r.readLine()) != null; ) {
        if (line.isBlank()) {
          continue;
        }
        String[] f = line.split("\t", -1);
        out.add(new Entry(f[0], f[2], f[1].equals("pair") ? f[3] : null, Integer.parseInt(f[4]) - 1,
            Integer.parseInt(f[5]) - 1, HeadPattern.parse(f[6]), f.length > 7 && f[7].startsWith("borderline")));
      }
    }
    return new LabelledMaps(out);
  }
}
