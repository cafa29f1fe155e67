package io.headscope.app.cli;

import io.headscope.analysis.corpus.Corpus;
import io.headscope.analysis.corpus.CorpusReader;
import io.headscope.model.HeadScopeException;
import java.nio.file.Path;
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

  static Corpus read(Path corpus) {
    Corpus c = CorpusReader.read(corpus);
    CorpusProgress.reportProblems(c.name(), c.problems(), c.problems().size());
    return c;
  }
}
