package io.headscope.app.cli;

import io.headscope.analysis.linguistics.DependencyHeads;
import io.headscope.analysis.linguistics.SyntaxAnalysis;
import io.headscope.analysis.linguistics.Treebank;
import io.headscope.analysis.linguistics.probes.PairAttention;
import io.headscope.analysis.linguistics.probes.ProbeResult;
import io.headscope.analysis.linguistics.probes.Probes;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/** The probes' lines on standard output, beside the best single head and offset they are measured against. */
final class ProbeReport {
  private ProbeReport() {}

  static void print(List<ProbeResult> results, Treebank train, int trainTooLong, SyntaxAnalysis.Result syntax,
      List<PairAttention> test) {
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "probe TRAIN %s: %d sentences read, %d unusable, %d longer than the model%n",
        train.name(), train.sentences().size() + train.skipped().size(), train.skipped().size(), trainTooLong));
    for (ProbeResult r : results) {
      boolean heads = r.probe().equals(ProbeResult.HEAD_SELECTION);
      b.append(String.format(Locale.ROOT, "probe %s: %s %s on %d %s of %d sentences (%d skipped)%s; "
          + "trained on %d TRAIN sentences (%d skipped), l2 %s chosen on held-out TRAIN (%s); seed %d%n",
          r.probe(), heads ? "UAS" : "accuracy", pct(r.accuracy()), r.testItems(), heads ? "words" : "word pairs",
          r.testSentences(), r.testSkipped(),
          heads ? ", " + pct(r.accuracyWithoutRoots()) + " of the words whose head is a word" : "",
          r.trainSentences(), r.trainSkipped(), plain(r.l2()), heldOut(r), r.seed()));
    }
    DependencyHeads.Best all = syntax.heads().best().stream().filter(x -> x.relation().equals(DependencyHeads.ALL))
        .findFirst().orElseThrow();
    long roots = test.stream().flatMap(p -> p.sentence().words().stream()).filter(w -> w.head() == 0).count();
    double bestWithoutRoots = all.accuracy() * all.count() / (double) (all.count() - roots);
    b.append(String.format(Locale.ROOT, "probe against: best single head %d-%d %s %s of all words (roots never right), "
        + "%s of the words whose head is a word; best offset %+d %s of all words%n", all.layer(), all.head(),
        all.direction().label(), pct(all.accuracy()), pct(bestWithoutRoots), all.baselineOffset(),
        pct(all.baselineAccuracy())));
    String text = b.toString();
    Output.write(null, false, o -> o.write(text.getBytes(StandardCharsets.UTF_8)), false);
  }

  private static String heldOut(ProbeResult r) {
    StringBuilder b = new StringBuilder();
    double[] acc = r.heldOutAccuracy();
    double[] grid = Probes.l2Grid();
    for (int g = 0; g < grid.length; g++) {
      b.append(g == 0 ? "" : ", ").append(plain(grid[g])).append(": ").append(pct(acc[g]));
    }
    return "held-out accuracy by l2 " + b;
  }

  private static String pct(double v) {
    return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.1f%%", 100 * v);
  }

  private static String plain(double v) {
    return BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
  }
}
