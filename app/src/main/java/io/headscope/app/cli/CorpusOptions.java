package io.headscope.app.cli;

import io.headscope.analysis.corpus.Corpus;
import io.headscope.analysis.corpus.CorpusInput;
import io.headscope.analysis.corpus.CorpusLines;
import io.headscope.analysis.corpus.CorpusReader;
import io.headscope.analysis.corpus.Shard;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** The batching option of the corpus commands, and how they read a corpus file. */
final class CorpusOptions {
  @Option(names = "--batch", defaultValue = "16", paramLabel = "N",
      description = "Inputs per forward pass (default 16).")
  int batch;

  /** Fails before any model work on an impossible batch size. */
  void checkBatch() {
    if (batch < 1 || batch > 512) {
      throw new UsageException("--batch must be between 1 and 512, got " + batch + ".");
    }
  }

  /**
   * One shard's inputs, with that shard's skipped lines reported; none at all is not an error here (the
   * shards together must have some).
   */
  static List<CorpusInput> read(Path corpus, Shard shard) {
    try (CorpusLines lines = CorpusLines.open(corpus, CorpusReader.MAX_CHARS).only(shard)) {
      List<CorpusInput> inputs = new ArrayList<>();
      for (CorpusInput in; (in = lines.next()) != null; ) {
        inputs.add(in);
      }
      CorpusProgress.reportProblems(lines.name(), lines.problems(), lines.problemCount());
      return inputs;
    }
  }

  static Corpus read(Path corpus) {
    Corpus c = CorpusReader.read(corpus);
    CorpusProgress.reportProblems(c.name(), c.problems(), c.problems().size());
    return c;
  }
}
