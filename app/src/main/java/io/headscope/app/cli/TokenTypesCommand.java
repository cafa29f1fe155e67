package io.headscope.app.cli;

import io.headscope.analysis.corpus.CorpusAnalysis;
import io.headscope.analysis.corpus.CorpusLines;
import io.headscope.analysis.corpus.CorpusReader;
import io.headscope.analysis.corpus.CorpusResult;
import io.headscope.analysis.corpus.Shard;
import io.headscope.analysis.export.TokenTypeCsv;
import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.analysis.shard.CorpusPartial;
import io.headscope.analysis.shard.PartialFile;
import io.headscope.model.BertModel;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "token-types", mixinStandardHelpOptions = true,
    description = "Per layer, the share of attention on [CLS], [SEP], punctuation (. and ,) and other tokens, "
        + "by weight and under norm weighting (Clark et al.; Kobayashi et al.), mean over a corpus.")
final class TokenTypesCommand extends ShardableCommand.Batched {
  @Option(names = "--corpus", required = true, paramLabel = "FILE",
      description = "A UTF-8 text file, one input per line, a TAB between the sentences of a pair.")
  Path corpus;

  @Override
  public Integer call() {
    Shard shard = sharding.shard();
    output.check();
    batching.checkBatch();
    PartialFile.CorpusId id = sharding.given() ? PartialFile.fingerprint(corpus) : null;
    try (CorpusLines lines = CorpusLines.open(corpus, CorpusReader.MAX_CHARS);
        BertModel bert = model.open();
        CorpusProgress progress = new CorpusProgress("token-types")) {
      CorpusAnalysis analysis = new CorpusAnalysis(bert, new HeadClassifier(), batching.batch);
      if (sharding.given()) {
        PartialOutput.write(output, CorpusPartial.part("token-types", shard, id, batching.batch,
            analysis.sums(lines, shard, progress, () -> false)), bert);
        return 0;
      }
      finish(analysis.run(lines, progress, () -> false), output);
    }
    return 0;
  }

  /** The CSV of a run (or of merged shards). */
  static void finish(CorpusResult r, CsvOutput output) {
    CorpusProgress.reportProblems(r);
    output.write(o -> TokenTypeCsv.write(r.perLayer(), r.inputs(), o));
  }
}
