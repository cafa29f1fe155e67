package io.headscope.app.cli;

import io.headscope.analysis.corpus.CorpusAnalysis;
import io.headscope.analysis.corpus.CorpusLines;
import io.headscope.analysis.corpus.CorpusReader;
import io.headscope.analysis.corpus.CorpusResult;
import io.headscope.analysis.corpus.FirstTokenCorpus;
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
        + "by weight and under norm weighting (Clark et al.; Kobayashi et al.), mean over a corpus. The special "
        + "tokens' columns are named as the model spells them: cls and sep for BERT's [CLS] and [SEP], <s> and </s> "
        + "for RoBERTa's and XLM-R's. On a causal model (GPT-2, GPT-NeoX, Llama, Qwen2, Mistral, Gemma): the first "
        + "token's share (the attention sink), punctuation and other, by weight: layer,first_token,punct,other,inputs.")
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
      if (bert.config().family().causal()) {
        return causal(bert, lines, progress);
      }
      CorpusAnalysis analysis = new CorpusAnalysis(bert, new HeadClassifier(), batching.batch);
      io.headscope.app.render.TokenTypeNames names = io.headscope.app.render.TokenTypeNames.of(bert);
      if (sharding.given()) {
        // the part keeps the specials' names, so the merged CSV names its columns as the single run's
        PartialFile.Contents part = CorpusPartial.part("token-types", shard, id, batching.batch,
            analysis.sums(lines, shard, progress, () -> false));
        PartialFile.Header h = part.header();
        java.util.Map<String, String> settings = new java.util.TreeMap<>(h.settings());
        settings.put(SPECIALS, names.cls() + " " + names.sep());
        PartialOutput.write(output, new PartialFile.Contents(new PartialFile.Header(h.command(), h.shard(), h.model(),
            h.corpus(), settings, h.models()), part.records(), part.summary()), bert);
        return 0;
      }
      finish(analysis.run(lines, progress, () -> false), names.cls() + " " + names.sep(), output);
    }
    return 0;
  }

  /**
   * A causal model: the first token's share (the attention sink), punctuation's and the rest's per layer, by
   * weight ({@link FirstTokenCorpus}); no categories are involved, so none are withheld. Not sharded: the parts'
   * format holds the classifier's sums.
   */
  private int causal(BertModel bert, CorpusLines lines, CorpusProgress progress) {
    if (sharding.given()) {
      throw new UsageException("--shard is for bidirectional models here; " + bert.name() + " is causal: run "
          + "token-types on the whole corpus (one pass keeps no maps).");
    }
    FirstTokenCorpus.Result r = new FirstTokenCorpus(bert, batching.batch).run(lines, progress, () -> false);
    CorpusProgress.reportProblems(r.corpus(), r.problems(), r.skipped());
    output.write(o -> TokenTypeCsv.writeCausal(r.perLayer(), r.analysed(), o));
    return 0;
  }

  /** The setting of a part that names the model's special tokens ({@code [CLS] [SEP]}, {@code <s> </s>}). */
  static final String SPECIALS = "specials";

  /**
   * The CSV of a run (or of merged shards), its special-token columns named by {@code specials} (the model's two
   * tokens, a space between; null for BERT's, as parts written before the names were kept).
   */
  static void finish(CorpusResult r, String specials, CsvOutput output) {
    CorpusProgress.reportProblems(r);
    String[] names = specials == null ? new String[] {TokenTypeCsv.BERT_CLS, TokenTypeCsv.BERT_SEP}
        : specials.split(" ", 2);
    output.write(o -> TokenTypeCsv.write(r.perLayer(), r.inputs(), names[0], names[1], o));
  }
}
