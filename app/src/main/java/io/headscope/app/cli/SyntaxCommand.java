package io.headscope.app.cli;

import io.headscope.analysis.corpus.Shard;
import io.headscope.analysis.linguistics.ConlluReader;
import io.headscope.analysis.linguistics.DependencyHeads;
import io.headscope.analysis.linguistics.SyntaxAnalysis;
import io.headscope.analysis.linguistics.SyntaxCsv;
import io.headscope.analysis.linguistics.Treebank;
import io.headscope.analysis.linguistics.probes.ProbeCsv;
import io.headscope.analysis.linguistics.probes.ProbeData;
import io.headscope.analysis.linguistics.probes.ProbeResult;
import io.headscope.analysis.linguistics.probes.Probes;
import io.headscope.analysis.shard.PartialFile;
import io.headscope.analysis.shard.TreebankPartial;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "syntax", mixinStandardHelpOptions = true,
    description = {"Which heads track dependency relations (Clark et al. 2019): for every head and both directions, "
        + "the share of words of a CoNLL-U treebank whose gold head it predicts, per relation and over all words.",
        "Writes relations.csv (relation,count,layer,head,direction,accuracy) and relations-best.csv beside it "
            + "(relation,count,best_layer,best_head,best_direction,best_accuracy,baseline_offset,baseline_accuracy), "
            + "and prints the best heads. Ctrl-C cancels and writes nothing.",
        "With --probe-train TRAIN.conllu, also trains Clark et al.'s attention-only head-selection probe and "
            + "Coenen et al.'s edge probe on TRAIN and scores them on the treebank: relations-probes.csv "
            + "(probe,train_sentences,test_items,accuracy,l2,seed) and lines on standard output."})
final class SyntaxCommand implements Callable<Integer> {
  @Option(names = "--treebank", required = true, paramLabel = "FILE.conllu", description = "A CoNLL-U file (UTF-8).")
  Path treebank;

  @Option(names = "--max-sentences", defaultValue = "0", paramLabel = "N",
      description = "Use only the first N sentences (default: all).")
  int maxSentences;

  @Option(names = "--universal", description = "Collapse relation subtypes to their universal part (nmod:poss -> nmod).")
  boolean universal;

  @Option(names = "--out", required = true, paramLabel = "relations.csv", description = "The per-head CSV; "
      + "the best heads go to the same name with -best before the extension.")
  Path out;

  @Option(names = "--force", description = "Overwrite existing output files.")
  boolean force;

  @Option(names = "--probe-train", paramLabel = "TRAIN.conllu", description = "A CoNLL-U file to train the probes "
      + "on (definitions in METHODS.md); they are scored on --treebank and written to the --out name with -probes.")
  Path probeTrain;

  @Option(names = "--seed", defaultValue = "0", paramLabel = "N",
      description = "Seed of the probes' held-out split of TRAIN and of their edge samples (default 0).")
  long seed;

  @Mixin ModelOptions model;

  @Mixin ShardOption sharding;

  @Override
  public Integer call() {
    if (maxSentences < 0) {
      throw new UsageException("--max-sentences must be 0 (all) or more, got " + maxSentences + ".");
    }
    Shard shard = sharding.shard();
    if (sharding.given() && probeTrain != null) {
      throw new UsageException("--probe-train does not go with --shard: the probes train on all of TRAIN at once.");
    }
    Path best = withSuffix(out, "-best");
    Path probes = withSuffix(out, "-probes");
    Output.checkWritable(out, force);
    if (!sharding.given()) {
      Output.checkWritable(best, force);
    }
    if (probeTrain != null) {
      Output.checkWritable(probes, force);
    }
    Treebank tb = ConlluReader.read(treebank);
    PartialFile.CorpusId id = sharding.given() ? PartialFile.fingerprint(treebank) : null;
    Treebank train = probeTrain == null ? null : readTrain(probeTrain);
    if (train != null) {
      // before the model and the main analysis, not after them
      io.headscope.analysis.linguistics.probes.Probes.requireTrainable(train);
    }
    try (BertModel bert = model.open();
        Cancellation cancel = Cancellation.onCtrlC()) {
      ProbeData.Collector test = new ProbeData.Collector(); // FILE's features, kept only for the probes
      SyntaxAnalysis.Result r;
      ProbeData.Collected trained = null;
      List<ProbeResult> results = List.of();
      // every result is computed before the first file is written: a failing probe leaves no file behind
      try {
        try (CorpusProgress progress = new CorpusProgress("syntax")) {
          r = sharding.given()
              ? SyntaxAnalysis.run(bert, tb, maxSentences, universal, shard, progress::update, cancel::requested)
              : SyntaxAnalysis.run(bert, tb, maxSentences, universal, progress::update, cancel::requested,
                  train == null ? SyntaxAnalysis.EachSentence.NONE : test);
        }
        if (train != null) {
          try (CorpusProgress progress = new CorpusProgress("probe-train")) {
            trained = ProbeData.collect(bert, train, progress::update, cancel::requested);
          }
          results = Probes.run(train.name(), trained.sentences(), test.sentences(), seed, cancel::requested);
        }
      } catch (CancellationException e) {
        return Cancellation.cancelled();
      }
      if (sharding.given()) {
        java.util.Map<String, String> settings = new java.util.LinkedHashMap<>();
        settings.put("max-sentences", String.valueOf(maxSentences));
        settings.put("universal", String.valueOf(universal));
        PartialOutput.write(out, force, TreebankPartial.syntaxPart(shard, bert.name(), id, settings, tb, r), bert);
        return 0;
      }
      List<ProbeResult> probed = results;
      finish(r, tb.skipped(), out, force);
      if (train != null) {
        Output.write(probes, force, o -> ProbeCsv.write(probed, o), false);
        ProbeReport.print(results, train, trained.tooLong(), r, test.sentences());
      }
    }
    return 0;
  }

  /** TRAIN's problems name it as the probes' training file. */
  private static Treebank readTrain(Path file) {
    try {
      return ConlluReader.read(file);
    } catch (HeadScopeException e) {
      throw new HeadScopeException("--probe-train: " + e.getMessage(), e);
    }
  }

  /** Both CSVs and the report of a run (or of merged shards); {@code skipped}: the treebank's unusable sentences. */
  static void finish(SyntaxAnalysis.Result r, java.util.List<String> skipped, Path out, boolean force) {
    Output.write(out, force, o -> SyntaxCsv.relations(r.heads(), o), false);
    Output.write(withSuffix(out, "-best"), force, o -> SyntaxCsv.best(r.heads(), o), false);
    report(skipped, r);
  }

  private static void report(java.util.List<String> skipped, SyntaxAnalysis.Result r) {
    System.err.printf(Locale.ROOT, "headscope: %d sentences, %d words%s%s%n", r.sentences(), r.words(),
        r.tooLong() > 0 ? "; " + r.tooLong() + " sentences longer than the model skipped" : "",
        skipped.isEmpty() ? "" : "; " + skipped.size() + " unusable sentences skipped (first: "
            + skipped.get(0) + ")");
    System.err.printf(Locale.ROOT, "headscope: %-14s %6s  %-6s %-10s %6s   %s%n", "relation", "count", "head",
        "direction", "acc", "baseline");
    for (DependencyHeads.Best b : r.heads().best()) {
      System.err.printf(Locale.ROOT, "headscope: %-14s %6d  %-6s %-10s %5.1f%%   offset %+d: %5.1f%%%n", b.relation(),
          b.count(), b.layer() + "-" + b.head(), b.direction().label(), 100 * b.accuracy(), b.baselineOffset(),
          100 * b.baselineAccuracy());
    }
  }

  /** {@code relations.csv} to {@code relations-best.csv}. */
  static Path withSuffix(Path file, String suffix) {
    String name = file.getFileName().toString();
    int dot = name.lastIndexOf('.');
    String next = dot > 0 ? name.substring(0, dot) + suffix + name.substring(dot) : name + suffix;
    return file.resolveSibling(next);
  }
}
