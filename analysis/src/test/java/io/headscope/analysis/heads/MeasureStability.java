package io.headscope.analysis.heads;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ProgressListener;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Issue 32's stability measurement: the same sentence alone and repeated to fill 512 positions. A head
 * whose pattern does not change with length (a [SEP] stripe, a previous-token line) should keep its
 * category. Prints, per sentence, how many of the 144 heads change category, how many are uncertain in
 * each, and the counts per category. A main class on the test class path; sentences written here.
 */
final class MeasureStability {
  static final List<String> SENTENCES = List.of(
      "The ferry to the island leaves at seven, and the last one comes back before dark.",
      "My neighbour repairs old bicycles in her garage and sells them at the Sunday market.",
      "When the power went out, the children lit candles and told stories until midnight.",
      "The committee postponed its decision because two members were still abroad.",
      "He forgot his umbrella on the train, so he arrived at the interview soaking wet.",
      "Rain fell all week, and the river rose above the old stone bridge.");

  /** Heads whose written-definition pattern is the same alone and repeated but whose category changes, by kind. */
  private static final Map<String, Integer> KEPT_FLIPS = new java.util.TreeMap<>();

  private MeasureStability() {}

  public static void main(String[] args) throws Exception {
    HeadClassifier c = new HeadClassifier(HeadClassifier.Method.LEARNED);
    int totalFlips = 0;
    int totalSureFlips = 0;
    int totalSure = 0;
    int heads = 0;
    int totalKept = 0;
    int totalKeptFlips = 0;
    int totalKeptSet = 0;
    int totalKeptSetFlips = 0;
    try (BertModel model = BertModel.load(ModelRepository.standard().resolve("bert-base-uncased", ProgressListener.NONE))) {
      int max = model.config().maxPositionEmbeddings();
      System.out.println("| sentence | tokens alone | tokens repeated | category changed | changed where both certain "
          + "| uncertain alone | uncertain repeated |");
      System.out.println("|---|---|---|---|---|---|---|");
      for (String s : SENTENCES) {
        AttentionTrace alone = model.trace(model.encode(s, null));
        int inner = alone.tokens().size() - 2;
        int k = (max - 2) / inner;
        String repeated = String.join(" ", java.util.Collections.nCopies(k, s));
        AttentionTrace rep = model.trace(model.encode(repeated, null));
        List<HeadScore> a = c.classifyAll(alone);
        List<HeadScore> b = c.classifyAll(rep);
        int flips = 0;
        int sureFlips = 0;
        int sure = 0;
        int ua = 0;
        int ub = 0;
        int kept = 0;
        int keptFlips = 0;
        Map<HeadPattern, int[]> counts = new EnumMap<>(HeadPattern.class);
        for (int i = 0; i < a.size(); i++) {
          HeadScore x = a.get(i);
          HeadScore y = b.get(i);
          flips += x.category() != y.category() ? 1 : 0;
          ua += x.uncertain() ? 1 : 0;
          ub += y.uncertain() ? 1 : 0;
          if (!x.uncertain() && !y.uncertain()) {
            sure++;
            sureFlips += x.category() != y.category() ? 1 : 0;
          }
          String sx = byDefinition(x.features(), "rows_on_stripe_set");
          if (sx.equals(byDefinition(y.features(), "rows_on_stripe_set"))) {
            totalKeptSet++;
            totalKeptSetFlips += x.category() != y.category() ? 1 : 0;
          }
          String dx = byDefinition(x.features());
          if (dx.equals(byDefinition(y.features()))) {
            kept++;
            keptFlips += x.category() != y.category() ? 1 : 0;
            if (x.category() != y.category()) {
              KEPT_FLIPS.merge(dx + ": " + x.category().label() + " -> " + y.category().label(), 1, Integer::sum);
            }
          }
          if (args.length > 0 && s == SENTENCES.get(0) && x.category() != y.category()) {
            int bi = MapFeatures.NAMES.indexOf("rows_on_band");
            int si = MapFeatures.NAMES.indexOf("rows_on_stripes");
            System.out.printf(Locale.ROOT, "    %s: %s %.2f -> %s %.2f  B %.2f -> %.2f  S %.2f -> %.2f  top %s -> %s%n", x.head(),
                x.category().label(), x.confidence(), y.category().label(), y.confidence(), x.features().values()[bi],
                y.features().values()[bi], x.features().values()[si], y.features().values()[si], x.topColumns(), y.topColumns());
          }
          counts.computeIfAbsent(x.category(), p -> new int[2])[0]++;
          counts.computeIfAbsent(y.category(), p -> new int[2])[1]++;
        }
        totalFlips += flips;
        totalKept += kept;
        totalKeptFlips += keptFlips;
        totalSureFlips += sureFlips;
        totalSure += sure;
        heads += a.size();
        System.out.printf(Locale.ROOT, "| %s | %d | %d | %d of %d | %d of %d | %d | %d |%n", s.substring(0, 24) + "...",
            alone.tokens().size(), rep.tokens().size(), flips, a.size(), sureFlips, sure, ua, ub);
        System.out.printf(Locale.ROOT, "    same pattern by the written definition (B, S): %d heads, of them %d change category%n",
            kept, keptFlips);
        StringBuilder line = new StringBuilder("    categories alone -> repeated:");
        counts.forEach((p, n) -> line.append(' ').append(p.label()).append(' ').append(n[0]).append("->").append(n[1]));
        System.out.println(line);
      }
    }
    System.out.printf(Locale.ROOT, "all: %d of %d heads change category (%.1f%%); %d of %d where neither is uncertain (%.1f%%)%n",
        totalFlips, heads, 100.0 * totalFlips / heads, totalSureFlips, totalSure, 100.0 * totalSureFlips / totalSure);
    System.out.printf(Locale.ROOT, "heads whose pattern is the same by the written definition in both: %d; of them %d change "
        + "category (%.1f%%)%n", totalKept, totalKeptFlips, 100.0 * totalKeptFlips / Math.max(1, totalKept));
    System.out.printf(Locale.ROOT, "the same with S on the stripe set (as the head panel shows it): %d; of them %d change "
        + "category (%.1f%%)%n", totalKeptSet, totalKeptSetFlips, 100.0 * totalKeptSetFlips / Math.max(1, totalKeptSet));
    KEPT_FLIPS.entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue())
        .forEach(e -> System.out.println("    " + e.getKey() + ": " + e.getValue()));
  }

  /**
   * The written definition's category from the row shares alone (GUIDELINES-3.md, METHODS.md): B the share
   * of rows with half their weight on the band, S on the stripes; "other" for block and heterogeneous.
   */
  static String byDefinition(MapFeatures f) {
    return byDefinition(f, "rows_on_stripes");
  }

  /** The same with S read from the feature {@code stripes} (the top two columns, or the stripe set). */
  static String byDefinition(MapFeatures f, String stripes) {
    double b = f.values()[MapFeatures.NAMES.indexOf("rows_on_band")];
    double s = f.values()[MapFeatures.NAMES.indexOf(stripes)];
    if (b >= 0.25 && s >= 0.25) {
      return "vertical+diagonal";
    }
    if (s >= 0.5) {
      return "vertical";
    }
    if (b >= 0.5) {
      return "diagonal";
    }
    return "other";
  }
}
