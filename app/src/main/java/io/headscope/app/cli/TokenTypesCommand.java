package io.headscope.app.cli;

import io.headscope.analysis.corpus.Corpus;
import io.headscope.analysis.corpus.CorpusAnalysis;
import io.headscope.analysis.corpus.CorpusLines;
import io.headscope.analysis.corpus.CorpusReader;
import io.headscope.analysis.corpus.CorpusResult;
import io.headscope.analysis.export.TokenTypeCsv;
import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.model.BertModel;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "token-types", mixinStandardHelpOptions = true,
    description = "Per layer, the share of attention on [CLS], [SEP], punctuation (. and ,) and other tokens, "
        + "by weight and under norm weighting (Clark et al.; Kobayashi et al.), mean over a corpus.")
final class TokenTypesCommand implements Callable<Integer> {
  @Option(names = "--corpus", required = true, paramLabel = "FILE",
      description = "A UTF-8 text file, one input per line, a TAB between the sentences of a pair.")
  Path corpus;

  @Mixin CsvOutput output;

  @Mixin CorpusOptions batching;

  @Mixin ModelOptions model;

  @Override
  public Integer call() {
    output.check();
    batching.checkBatch();
    try (CorpusLines lines = CorpusLines.open(corpus, CorpusReader.MAX_CHARS);
        BertModel bert = model.open();
        CorpusProgress progress = new CorpusProgress("token-types")) {
      CorpusResult r = new CorpusAnalysis(bert, new HeadClassifier(), batching.batch).run(lines, progress, () -> false);
      CorpusProgress.reportProblems(r);
      output.write(o -> TokenTypeCsv.write(r.perLayer(), r.inputs(), o));
    }
    return 0;
  }
}
