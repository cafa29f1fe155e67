package io.headscope.analysis.heads;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ProgressListener;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes every labelled map's features and per-row weights (band, top columns by mean, specials, own
 * segment) as TSV for feature exploration outside Java. A main class: {@code DumpRows OUT_DIR}.
 */
final class DumpRows {
  private DumpRows() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    Files.createDirectories(dir);
    List<LabelledMaps.Entry> entries = LabelledMaps.loadAll().entries();
    HeadClassifier rule = new HeadClassifier(HeadClassifier.Method.RULE);
    try (BertModel model = BertModel.load(ModelRepository.standard().resolve("bert-base-uncased", ProgressListener.NONE));
        PrintWriter maps = new PrintWriter(Files.newBufferedWriter(dir.resolve("maps.tsv")));
        PrintWriter rows = new PrintWriter(Files.newBufferedWriter(dir.resolve("rows.tsv")))) {
      maps.println("k\tid\tset\tinput\ttokens\tlabel\tfirst\tsecond\tborderline\t" + String.join("\t", MapFeatures.NAMES));
      rows.println("k\trow\tband\tc1\tc2\tc3\tspecials\town\tnear\targmax_off\tband_max\tstripe_max\tother_max\tmap_max\tc4\tadaptive\tadaptive_k\tpunct");
      Map<String, AttentionTrace> traces = new HashMap<>();
      int k = 0;
      for (LabelledMaps.Entry e : entries) {
        AttentionTrace t = traces.computeIfAbsent(e.input(), x -> model.trace(model.encode(e.a(), e.b())));
        if (traces.size() > 4) {
          traces.keySet().removeIf(x -> !x.equals(e.input()));
        }
        Head h = new Head(e.layer(), e.head());
        HeadClassifier.Analysed a = rule.analyse(t, h);
        float[][] map = t.map(h);
        int n = map.length;
        StringBuilder line = new StringBuilder();
        line.append(k).append('\t').append(e.id()).append('\t').append(e.set()).append('\t')
            .append(Integer.toHexString(e.input().hashCode())).append('\t').append(n).append('\t')
            .append(e.label().label()).append('\t').append(e.first() == null ? "" : e.first().label()).append('\t')
            .append(e.second() == null ? "" : e.second().label()).append('\t').append(e.borderline());
        for (double v : a.features().values()) {
          line.append('\t').append(String.format(Locale.ROOT, "%.6g", v));
        }
        maps.println(line);
        double[] col = new double[n];
        for (float[] r : map) {
          for (int j = 0; j < n; j++) {
            col[j] += r[j];
          }
        }
        Integer[] order = new Integer[n];
        for (int j = 0; j < n; j++) {
          order[j] = j;
        }
        java.util.Arrays.sort(order, (x, y) -> Double.compare(col[y], col[x]));
        double mapMax = 0;
        for (float[] r : map) {
          for (float v : r) {
            mapMax = Math.max(mapMax, v);
          }
        }
        boolean[] stripeSet = MapFeatures.stripeSet(col);
        int adaptiveK = 0;
        for (boolean b : stripeSet) {
          adaptiveK += b ? 1 : 0;
        }
        long[] seg = t.encoding().segments();
        List<String> tok = t.tokens();
        for (int i = 0; i < n; i++) {
          double band = 0;
          double[] c = new double[3];
          double specials = 0;
          double own = 0;
          double near = 0;
          int argmax = 0;
          double bandMax = 0;
          double stripeMax = 0;
          double otherMax = 0;
          double c4 = 0;
          double adaptive = 0;
          double punct = 0;
          for (int j = 0; j < n; j++) {
            double w = map[i][j];
            int d = Math.abs(i - j);
            if (map[i][j] > map[i][argmax]) {
              argmax = j;
            }
            if (d <= 1) {
              band += w;
              bandMax = Math.max(bandMax, w);
              continue;
            }
            for (int r = 0; r < 4 && r < n; r++) {
              c4 += order[r] == j ? w : 0;
            }
            adaptive += stripeSet[j] ? w : 0;
            if (order[0] == j || (n > 1 && order[1] == j)) {
              stripeMax = Math.max(stripeMax, w);
            } else {
              otherMax = Math.max(otherMax, w);
            }
            for (int r = 0; r < 3 && r < n; r++) {
              if (order[r] == j) {
                for (int q = r; q < 3; q++) {
                  c[q] += w;
                }
              }
            }
            if (d <= 3) {
              near += w;
            }
            if (seg[j] == seg[i]) {
              own += w;
            }
            TokenType ty = TokenType.of(tok.get(j));
            if (ty == TokenType.CLS || ty == TokenType.SEP) {
              specials += w;
            } else if (ty == TokenType.PUNCT) {
              punct += w;
            }
          }
          rows.printf(Locale.ROOT, "%d\t%d\t%.5f\t%.5f\t%.5f\t%.5f\t%.5f\t%.5f\t%.5f\t%d\t%.5f\t%.5f\t%.5f\t%.5f\t%.5f\t%.5f\t%d\t%.5f%n", k, i, band,
              c[0], c[1], c[2], specials, own, near, argmax - i, bandMax, stripeMax, otherMax, mapMax, c4, adaptive, adaptiveK, punct);
        }
        k++;
      }
    }
  }
}
