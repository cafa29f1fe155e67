package io.headscope.app.cli;

import io.headscope.analysis.corpus.Shard;
import io.headscope.analysis.linguistics.ConlluReader;
import io.headscope.analysis.linguistics.CorefCsv;
import io.headscope.analysis.linguistics.CorefHeads;
import io.headscope.analysis.linguistics.Treebank;
import io.headscope.analysis.shard.PartialFile;
import io.headscope.analysis.shard.TreebankPartial;
import io.headscope.model.BertModel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "coref", mixinStandardHelpOptions = true,
    description = {"Which heads resolve coreference (Clark et al. 2019): for every head, how often its attention from a "
        + "mention's head word picks the head word of an earlier mention of the same entity, in a CoNLL-U file with "
        + "CorefUD Entity= annotations, beside the nearest and head_match baselines.",
        "Writes coref.csv (layer,head,mention_type,mentions,accuracy) and coref-baselines.csv beside it "
            + "(baseline,mention_type,mentions,accuracy), and prints the best heads. Ctrl-C cancels and writes nothing."})
final class CorefCommand implements Callable<Integer> {
  @Option(names = "--treebank", required = true, paramLabel = "FILE.conllu", description = "A CoNLL-U file with Entity=.")
  Path treebank;

  @Option(names = "--window", paramLabel = "N",
      description = "At most this many wordpieces per window of whole sentences, [CLS] and [SEP] included "
          + "(default 128, as Clark, or the model's maximum when it is shorter, as the app); a single longer "
          + "sentence is a window of its own.")
  Integer window;

  @Option(names = "--out", required = true, paramLabel = "coref.csv", description = "The per-head CSV; the baselines "
      + "go to the same name with -baselines before the extension.")
  Path out;

  @Option(names = "--force", description = "Overwrite existing output files.")
  boolean force;

  @Mixin ModelOptions model;

  @Mixin ShardOption sharding;

  @Override
  public Integer call() {
    if (window != null && window < 3) {
      throw new UsageException("--window must be at least 3 wordpieces, got " + window + ".");
    }
    Shard shard = sharding.shard();
    Path baselines = SyntaxCommand.withSuffix(out, "-baselines");
    Output.checkWritable(out, force);
    if (!sharding.given()) {
      Output.checkWritable(baselines, force);
    }
    Treebank tb = ConlluReader.read(treebank);
    if (tb.sentences().stream().allMatch(s -> s.mentions().isEmpty())) {
      // before the model: a treebank without coreference would give a table of empty accuracies, exit 0
      throw new io.headscope.model.core.HeadScopeException(treebank + " has no coreference annotation (no Entity= in the "
          + "MISC column of any usable sentence), so there is nothing to score; headscope syntax scores its "
          + "dependency relations.");
    }
    PartialFile.CorpusId id = sharding.given() ? PartialFile.fingerprint(treebank) : null;
    try (BertModel bert = model.open();
        Cancellation cancel = Cancellation.onCtrlC()) {
      int w = window != null ? window
          : Math.min(io.headscope.analysis.linguistics.LinguisticsRun.COREF_WINDOW, bert.tokenizer().maxLength());
      CorefHeads.Result r;
      try (CorpusProgress progress = new CorpusProgress("coref")) {
        r = CorefHeads.run(bert, tb, w, shard, progress::update, cancel::requested);
      } catch (CancellationException e) {
        return Cancellation.cancelled();
      }
      if (sharding.given()) {
        PartialOutput.write(out, force, TreebankPartial.corefPart(shard, bert.name(), id, java.util.Map.of("window",
            String.valueOf(w)), tb, r), bert);
        return 0;
      }
      finish(r, tb.skipped(), out, force);
    }
    return 0;
  }

  /** Both CSVs and the report of a run (or of merged shards); {@code skipped}: the treebank's unusable sentences. */
  static void finish(CorefHeads.Result r, List<String> skipped, Path out, boolean force) {
    Output.write(out, force, o -> CorefCsv.heads(r, o), false);
    Output.write(SyntaxCommand.withSuffix(out, "-baselines"), force, o -> CorefCsv.baselines(r, o), false);
    report(r, skipped);
  }

  private static void report(CorefHeads.Result r, List<String> skipped) {
    System.err.printf(Locale.ROOT, "headscope: %d windows, %d mentions evaluated (%d pronouns, %d proper, %d nominal)%s%n",
        r.windows(), r.mentions()[0], r.mentions()[1], r.mentions()[2], r.mentions()[3],
        r.tooLong() > 0 ? "; " + r.tooLong() + " sentences longer than the model skipped" : "");
    for (CorefHeads.MentionType t : CorefHeads.MentionType.values()) {
      if (r.mentions()[t.ordinal()] == 0) {
        continue;
      }
      List<int[]> all = new ArrayList<>();
      for (int l = 0; l < r.layers(); l++) {
        for (int h = 0; h < r.heads(); h++) {
          all.add(new int[] {l, h});
        }
      }
      all.sort(Comparator.comparingDouble((int[] x) -> -r.accuracy(x[0], x[1], t)));
      StringBuilder b = new StringBuilder();
      for (int[] x : all.subList(0, 3)) {
        b.append(String.format(Locale.ROOT, " %d-%d %.1f%%", x[0] + 1, x[1] + 1, 100 * r.accuracy(x[0], x[1], t)));
      }
      System.err.printf(Locale.ROOT, "headscope: %-8s best heads:%s | nearest %.1f%%, head_match %.1f%%%n", t.label(),
          b, 100 * r.baselineAccuracy(CorefHeads.NEAREST, t), 100 * r.baselineAccuracy(CorefHeads.HEAD_MATCH, t));
    }
    if (!skipped.isEmpty()) {
      System.err.println("headscope: " + skipped.size() + " unusable sentences skipped (first: " + skipped.get(0) + ")");
    }
  }
}
