package io.headscope.app.cli;

import io.headscope.analysis.corpus.CorpusLines;
import io.headscope.analysis.corpus.CorpusReader;
import io.headscope.analysis.distance.HeadDistanceAnalysis;
import io.headscope.analysis.distance.HeadDistances;
import io.headscope.analysis.export.HeadDistanceCsv;
import io.headscope.model.BertModel;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "head-distances", mixinStandardHelpOptions = true,
    description = {"How alike every pair of heads attends (Clark et al. 2019): the Jensen-Shannon divergence "
        + "between their attention distributions (rows smoothed as 0.999 A + 0.001/n, natural log, so 0 to ln 2), "
        + "mean over query rows and over the corpus's inputs.",
        "CSV layer_a,head_a,layer_b,head_b,js_divergence (1-based, nine decimals): every ordered pair of "
        + "different heads, both (a,b) and (b,a) with the same value (the divergence is symmetric), "
        + "144 x 143 = 20,592 rows for bert-base; a head with itself (always 0) is left out."})
final class HeadDistancesCommand implements Callable<Integer> {
  @Option(names = "--corpus", required = true, paramLabel = "FILE",
      description = "A UTF-8 text file, one input per line, a TAB between the sentences of a pair.")
  Path corpus;

  @Option(names = "--max-inputs", paramLabel = "N", defaultValue = "0",
      description = "Use only the first N inputs of the corpus (skipped lines do not count); 0 (default) for all.")
  int maxInputs;

  @Mixin CsvOutput output;

  @Mixin ModelOptions model;

  @Override
  public Integer call() {
    if (maxInputs < 0) {
      throw new UsageException("--max-inputs must be 0 (all) or more, got " + maxInputs + ".");
    }
    output.check();
    long start = System.nanoTime();
    try (CorpusLines lines = CorpusLines.open(corpus, CorpusReader.MAX_CHARS);
        BertModel bert = model.open();
        CorpusProgress progress = new CorpusProgress("head-distances")) {
      HeadDistances d = new HeadDistanceAnalysis(bert).run(lines, maxInputs, progress, () -> false);
      CorpusProgress.reportProblems(d.source(), d.problems(), d.skipped());
      output.write(o -> HeadDistanceCsv.write(d, o));
      System.err.printf(Locale.ROOT, "headscope: %d heads, %d pairs, mean over %d input%s in %.1f s%n", d.count(),
          d.count() * (d.count() - 1) / 2, d.inputs(), d.inputs() == 1 ? "" : "s", (System.nanoTime() - start) / 1e9);
    }
    return 0;
  }
}
