package io.headscope.analysis.heads;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The issue-32 tables: held-out predictions against the consensus in each length bucket, beside the
 * labellers' own agreement there (maps two labellers saw), on the maps both called sure, per category,
 * and the calibration. Used by the report, the test that holds the floors, and the experiments.
 */
final class LengthBuckets {
  private LengthBuckets() {}

  /** One bucket's row. */
  record Row(String bucket, int maps, double labellers, double learned, int sure, double learnedSure,
      double uncertainShare, double learnedShown) {}

  /**
   * @param said held-out category per map
   * @param confidence held-out top probability per map
   * @param threshold below it a map is "uncertain" (0 for none)
   */
  static List<Row> rows(List<ClassifierEvaluation.Map1> maps, HeadPattern[] said, double[] confidence, double threshold) {
    List<Row> out = new ArrayList<>();
    List<String> buckets = new ArrayList<>(ClassifierEvaluation.BUCKETS);
    buckets.add("all");
    for (String b : buckets) {
      int n = 0;
      int agree = 0;
      int hit = 0;
      int sure = 0;
      int sureHit = 0;
      int uncertain = 0;
      int shownHit = 0;
      for (int i = 0; i < maps.size(); i++) {
        ClassifierEvaluation.Map1 m = maps.get(i);
        LabelledMaps.Entry e = m.entry();
        if (!e.twoLabellers() || !(b.equals("all") || m.bucket().equals(b))) {
          continue;
        }
        n++;
        agree += e.first() == e.second() ? 1 : 0;
        boolean ok = said[i] == e.label();
        hit += ok ? 1 : 0;
        if (!e.borderline()) {
          sure++;
          sureHit += ok ? 1 : 0;
        }
        if (confidence[i] < threshold) {
          uncertain++;
        } else {
          shownHit += ok ? 1 : 0;
        }
      }
      out.add(new Row(b, n, agree / (double) n, hit / (double) n, sure, sureHit / (double) sure,
          uncertain / (double) n, shownHit / (double) Math.max(1, n - uncertain)));
    }
    return out;
  }

  static String table(List<Row> rows) {
    StringBuilder s = new StringBuilder(
        "| length | maps | labellers agree | learned vs consensus | gap | sure maps | learned on sure | uncertain | agreement where shown |\n"
            + "|---|---|---|---|---|---|---|---|---|\n");
    for (Row r : rows) {
      s.append(String.format(Locale.ROOT, "| %s | %d | %.3f | %.3f | %+.3f | %d | %.3f | %.3f | %.3f |%n", r.bucket(),
          r.maps(), r.labellers(), r.learned(), r.learned() - r.labellers(), r.sure(), r.learnedSure(),
          r.uncertainShare(), r.learnedShown()));
    }
    return s.toString();
  }

  /** Per bucket and category: consensus count and recall (maps two labellers saw). */
  static String recall(List<ClassifierEvaluation.Map1> maps, HeadPattern[] said) {
    StringBuilder s = new StringBuilder("| category |");
    List<String> buckets = new ArrayList<>(ClassifierEvaluation.BUCKETS);
    buckets.add("all");
    buckets.forEach(b -> s.append(' ').append(b).append(" maps | recall |"));
    s.append('\n').append("|---|").append("---|---|".repeat(buckets.size())).append('\n');
    for (HeadPattern p : HeadPattern.values()) {
      s.append("| ").append(p.label()).append(" |");
      for (String b : buckets) {
        int n = 0;
        int hit = 0;
        for (int i = 0; i < maps.size(); i++) {
          ClassifierEvaluation.Map1 m = maps.get(i);
          if (m.entry().twoLabellers() && m.entry().label() == p && (b.equals("all") || m.bucket().equals(b))) {
            n++;
            hit += said[i] == p ? 1 : 0;
          }
        }
        s.append(String.format(Locale.ROOT, " %d | %s |", n, n == 0 ? "-" : String.format(Locale.ROOT, "%.3f", hit / (double) n)));
      }
      s.append('\n');
    }
    return s.toString();
  }

  /** Per bucket, agreement in confidence bins (maps two labellers saw). */
  static String calibration(List<ClassifierEvaluation.Map1> maps, HeadPattern[] said, double[] confidence) {
    double[] edges = {0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0001};
    StringBuilder s = new StringBuilder("| length |");
    for (int k = 0; k + 1 < edges.length; k++) {
      s.append(String.format(Locale.ROOT, " [%.1f, %.1f) |", edges[k], Math.min(1, edges[k + 1])));
    }
    s.append('\n').append("|---|").append("---|".repeat(edges.length - 1)).append('\n');
    List<String> buckets = new ArrayList<>(ClassifierEvaluation.BUCKETS);
    buckets.add("all");
    for (String b : buckets) {
      s.append("| ").append(b).append(" |");
      for (int k = 0; k + 1 < edges.length; k++) {
        int n = 0;
        int hit = 0;
        for (int i = 0; i < maps.size(); i++) {
          ClassifierEvaluation.Map1 m = maps.get(i);
          if (m.entry().twoLabellers() && (b.equals("all") || m.bucket().equals(b))
              && confidence[i] >= edges[k] && confidence[i] < edges[k + 1]) {
            n++;
            hit += said[i] == m.entry().label() ? 1 : 0;
          }
        }
        s.append(n == 0 ? " - |" : String.format(Locale.ROOT, " %.3f (%d) |", hit / (double) n, n));
      }
      s.append('\n');
    }
    return s.toString();
  }
}
