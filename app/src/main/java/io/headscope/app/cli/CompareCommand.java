package io.headscope.app.cli;

import io.headscope.analysis.compare.CompareCsv;
import io.headscope.analysis.compare.ComparisonResult;
import io.headscope.analysis.compare.HeadComparison;
import io.headscope.analysis.compare.LayerComparison;
import io.headscope.analysis.compare.ModelComparison;
import io.headscope.analysis.corpus.Corpus;
import io.headscope.analysis.corpus.CorpusLines;
import io.headscope.analysis.corpus.CorpusReader;
import io.headscope.analysis.corpus.Shard;
import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.analysis.shard.ComparePartial;
import io.headscope.analysis.shard.PartialFile;
import io.headscope.model.BertModel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "compare", mixinStandardHelpOptions = true,
    description = {"Two checkpoints of the same shape (e.g. base and fine-tuned) head by head (Kovaleva et al. 2019): "
        + "per head the mean over inputs of the cosine similarity of the two flattened attention maps and of the "
        + "Jensen-Shannon divergence between their rows (natural log, so 0 to ln 2, mean over query rows), and "
        + "each head's majority category in either model. Inputs are tokenized once, with --model's tokenizer, "
        + "and the same token ids run through both; models with other shapes or vocabularies are refused.",
        "CSV layer,head,cosine,js_divergence,category_a,category_b,inputs (1-based): each layer's heads, then that "
        + "layer's means over its heads with head * and no categories."})
final class CompareCommand extends ShardableCommand.Batched {
  @Option(names = "--with", required = true, paramLabel = "B",
      description = "The second model (B), named as --model: a model name, hf:owner/name or a Hugging Face folder.")
  String with;

  @Option(names = "--corpus", paramLabel = "FILE",
      description = "A UTF-8 text file, one input per line, a TAB between the sentences of a pair.")
  Path corpus;

  @Option(names = "--text", paramLabel = "TEXT", description = "One sentence instead of a corpus.")
  String text;

  @Option(names = "--pair", paramLabel = "TEXT", description = "With --text: a second sentence (segment b).")
  String pair;

  @Option(names = "--classifier", paramLabel = "learned|rule", defaultValue = "learned",
      description = "How a map's scores become a category: learned (default) or rule (see classify).")
  String classifier;

  @Override
  public Integer call() {
    ModelOptions.requireCorpusOrText(corpus, text, pair);
    HeadClassifier.Method method = HeadClassifier.Method.parse(classifier);
    Shard shard = sharding.shard();
    batching.checkBatch();
    long start = System.nanoTime();
    PartialFile.CorpusId id = checkBeforeTheWork(corpus);
    CorpusLines lines = corpus != null ? CorpusLines.open(corpus, CorpusReader.MAX_CHARS) : null;
    try (lines;
        BertModel a = model.open();
        BertModel b = model.open(with);
        Cancellation cancel = Cancellation.onCtrlC()) {
      ModelComparison comparison = new ModelComparison(a, b, new HeadClassifier(method), batching.batch);
      ComparisonResult r;
      try (CorpusProgress progress = new CorpusProgress("compare")) {
        if (text != null) {
          Warnings.truncation(a.encode(text, pair));
          r = comparison.truncatingLongInputs().run(Corpus.of(text, pair), progress, cancel::requested);
        } else if (sharding.given()) {
          PartialOutput.write(output, ComparePartial.part(shard, id, batching.batch, method,
              comparison.sums(lines, shard, progress, cancel::requested)), a, b);
          return 0;
        } else {
          r = comparison.run(lines, progress, cancel::requested);
        }
      } catch (CancellationException e) {
        return Cancellation.cancelled();
      }
      finish(r, output, (System.nanoTime() - start) / 1e9);
    }
    return 0;
  }

  /** The CSV and the summary of a run (or of merged shards). */
  static void finish(ComparisonResult r, CsvOutput output, double seconds) {
    CorpusProgress.reportProblems(r.source(), r.problems(), r.skipped());
    output.write(o -> CompareCsv.write(r, o));
    summary(r, seconds);
  }

  /** The layers from most to least changed, and the heads whose category changed. */
  private static void summary(ComparisonResult r, double seconds) {
    System.err.printf(Locale.ROOT, "headscope: %s vs %s, %d heads, mean over %d input%s%s%n", r.modelA(),
        r.modelB(), r.perHead().size(), r.inputs(), r.inputs() == 1 ? "" : "s",
        seconds < 0 ? "" : String.format(Locale.ROOT, " in %.1f s", seconds));
    List<String> layers = new ArrayList<>();
    for (LayerComparison l : r.layersByCosine()) {
      layers.add(String.format(Locale.ROOT, "%d (%.4f)", l.layer() + 1, l.cosine()));
    }
    System.err.println("headscope: layers by mean cosine, most changed first: " + String.join(", ", layers));
    List<HeadComparison> changed = r.changedCategories();
    if (changed.isEmpty()) {
      System.err.println("headscope: no head changed its category.");
      return;
    }
    List<String> heads = new ArrayList<>();
    for (HeadComparison h : changed) {
      heads.add(String.format(Locale.ROOT, "%d-%d %s -> %s", h.head().layer() + 1, h.head().head() + 1,
          h.categoryA().label(), h.categoryB().label()));
    }
    System.err.printf(Locale.ROOT, "headscope: %d head%s changed category: %s%n", changed.size(),
        changed.size() == 1 ? "" : "s", String.join(", ", heads));
  }
}
