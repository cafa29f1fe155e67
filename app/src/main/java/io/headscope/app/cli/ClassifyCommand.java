package io.headscope.app.cli;

import io.headscope.analysis.corpus.Corpus;
import io.headscope.analysis.corpus.CorpusAnalysis;
import io.headscope.analysis.corpus.CorpusLines;
import io.headscope.analysis.corpus.CorpusReader;
import io.headscope.analysis.corpus.CorpusResult;
import io.headscope.analysis.corpus.Shard;
import io.headscope.analysis.export.HeadCsv;
import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.analysis.heads.HeadPattern;
import io.headscope.analysis.shard.CorpusPartial;
import io.headscope.analysis.shard.PartialFile;
import io.headscope.model.BertModel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "classify", mixinStandardHelpOptions = true,
    description = "Sorts every head into Kovaleva's categories (vertical, diagonal, vertical+diagonal, block, "
        + "heterogeneous) over a corpus or one input, with the scores and statistics behind it: "
        + "one CSV row per head (header in the README).")
final class ClassifyCommand extends ShardableCommand.Batched {
  @Option(names = "--corpus", paramLabel = "FILE",
      description = "A UTF-8 text file, one input per line, a TAB between the sentences of a pair.")
  Path corpus;

  @Option(names = "--text", paramLabel = "TEXT", description = "One sentence instead of a corpus.")
  String text;

  @Option(names = "--pair", paramLabel = "TEXT", description = "With --text: a second sentence (segment b).")
  String pair;

  @Option(names = "--classifier", paramLabel = "learned|rule", defaultValue = "learned",
      description = "How scores become a category: learned (default; a logistic model over the scores, "
          + "better on held-out hand labels) or rule (the thresholds in METHODS.md, checkable by hand).")
  String classifier;

  @Override
  public Integer call() {
    ModelOptions.requireCorpusOrText(corpus, text, pair);
    HeadClassifier.Method method = HeadClassifier.Method.parse(classifier);
    Shard shard = sharding.shard();
    batching.checkBatch();
    PartialFile.CorpusId id = checkBeforeTheWork(corpus);
    CorpusLines lines = corpus != null ? CorpusLines.open(corpus, CorpusReader.MAX_CHARS) : null;
    try (lines;
        BertModel bert = model.open();
        CorpusProgress progress = new CorpusProgress("classify")) {
      CorpusAnalysis analysis = new CorpusAnalysis(bert, new HeadClassifier(method), batching.batch);
      CorpusResult r;
      if (text != null) {
        // one typed input is cut to the model's length with a warning, as attention and predict do
        Warnings.truncation(bert.encode(text, pair));
        r = analysis.truncatingLongInputs().run(Corpus.of(text, pair), progress, () -> false);
      } else if (sharding.given()) {
        PartialOutput.write(output, CorpusPartial.part("classify", shard, id, batching.batch, method,
            analysis.sums(lines, shard, progress, () -> false)), bert);
        return 0;
      } else {
        r = analysis.run(lines, progress, () -> false);
      }
      finish(r, output);
    }
    return 0;
  }

  /** The CSV and the summary of a run (or of merged shards). */
  static void finish(CorpusResult r, CsvOutput output) {
    CorpusProgress.reportProblems(r);
    output.write(o -> HeadCsv.write(r.perHead(), o));
    List<String> shares = new ArrayList<>();
    for (HeadPattern p : HeadPattern.values()) {
      shares.add(String.format(Locale.ROOT, "%s %.1f%%", p.label(), 100 * r.modelShares().get(p)));
    }
    // the model-wide share of maps per category: Kovaleva et al.'s stacked bar, in one line
    System.err.printf(Locale.ROOT, "headscope: %d maps (%d input%s x %d heads) by category: %s%n",
        r.inputs() * r.perHead().size(), r.inputs(), r.inputs() == 1 ? "" : "s", r.perHead().size(),
        String.join(", ", shares));
    long uncertain = r.perHead().stream().filter(h -> h.uncertain()).count();
    if (uncertain > 0) {
      // the CSV's rows say "uncertain" for these heads; say how many, so the count above is not misread
      System.err.printf(Locale.ROOT, "headscope: %d of %d heads uncertain over the input%s (the learned model's top "
          + "probability under %.2f; their rows name the likeliest and the runner-up)%n", uncertain, r.perHead().size(),
          r.inputs() == 1 ? "" : "s", io.headscope.analysis.heads.LearnedRule.UNCERTAIN_BELOW);
    }
  }
}
