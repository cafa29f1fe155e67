package io.headscope.app.cli;

import io.headscope.analysis.ablation.AblationCsv;
import io.headscope.analysis.ablation.ImportanceTable;
import io.headscope.analysis.corpus.Shard;
import io.headscope.model.BertModel;
import io.headscope.model.HeadMask;
import io.headscope.model.ablation.AblationResult;
import io.headscope.model.ablation.AblationSweep;
import io.headscope.model.ablation.HeadImportance;
import io.headscope.model.ablation.ImportanceResult;
import io.headscope.model.tokenizer.Encoding;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "importance", mixinStandardHelpOptions = true,
    description = {"Gradient head importance (Michel et al. 2019): |dLoss/dm_h| of the masked-LM loss, averaged over "
        + "the inputs, as CSV: layer,head,importance,importance_normalized,rank,sweep_delta_logprob (1-based; "
        + "normalised by the l2 norm within each layer; rank 1 = most important by raw importance).",
        "Unless --no-sweep, the ablation sweep of the same inputs is run too: its delta_logprob fills the last column "
            + "and Spearman's rank correlation of importance with |delta_logprob| is printed to stderr.",
        "Ctrl-C cancels and writes nothing."})
final class ImportanceCommand implements Callable<Integer> {
  @Mixin InputOptions inputs;

  @Option(names = "--no-sweep", description = "Skip the comparison sweep (much faster; the last column stays empty).")
  boolean noSweep;

  @Mixin CsvOutput output;

  @Mixin ModelOptions model;

  @Mixin ShardOption sharding;

  @Override
  public Integer call() {
    inputs.check();
    Shard shard = sharding.shard();
    if (sharding.given() && inputs.corpus == null) {
      throw new UsageException("--shard goes with --corpus: one typed input is not split.");
    }
    output.check();
    PartialFile.CorpusId id = sharding.given() ? PartialFile.fingerprint(inputs.corpus) : null;
    try (BertModel bert = model.open();
        Cancellation cancel = Cancellation.onCtrlC()) {
      List<Encoding> encoded = inputs.encode(bert, shard);
      ImportanceResult imp;
      AblationResult sweep = null;
      // the gradient costs about a sixth of the sweep per input
      try (ProgressDisplay progress = ProgressDisplay.start("importance")) {
        AblationSweep.Options options = new AblationSweep.Options(HeadMask.Mode.ZERO, false, inputs.seed);
        if (sharding.given()) {
          List<HeadImportance.Gradient> g = new HeadImportance(bert).gradients(encoded, inputs.seed,
              progress.part(0, noSweep ? 1 : 0.15), cancel::requested);
          List<AblationResult> each = noSweep ? null
              : new AblationSweep(bert).runEach(encoded, options, progress.part(0.15, 1), cancel::requested);
          java.util.Map<String, String> settings = new java.util.LinkedHashMap<>();
          settings.put("seed", String.valueOf(inputs.seed));
          settings.put("sweep", String.valueOf(!noSweep));
          SweepPartial.writeImportance(output, shard, bert.name(), id, settings, inputs.lines, g, each);
          return 0;
        }
        imp = new HeadImportance(bert).run(encoded, inputs.seed, progress.part(0, noSweep ? 1 : 0.15),
            cancel::requested);
        if (!noSweep) {
          sweep = new AblationSweep(bert).run(encoded, options, progress.part(0.15, 1), cancel::requested);
        }
      } catch (CancellationException e) {
        return Cancellation.cancelled(); // while the Ctrl-C hook still waits, so the line is printed
      }
      finish(imp, sweep, output);
    }
    return 0;
  }

  /** The CSV and the summary of a run (or of merged shards); {@code sweep} is null without one. */
  static void finish(ImportanceResult imp, AblationResult sweep, CsvOutput output) {
    ImportanceTable table = ImportanceTable.of(imp, sweep);
    output.write(o -> AblationCsv.importance(table, o));
    System.err.printf(Locale.ROOT, "headscope: %d input(s), mean masked-LM loss %.4f nats%n", imp.inputs(), imp.meanLoss());
    if (sweep != null) {
      System.err.printf(Locale.ROOT,
          "headscope: Spearman rank correlation of importance with the sweep's |delta_logprob|: %.3f (%d heads)%n",
          table.spearman(), table.rows().size());
    }
  }
}
