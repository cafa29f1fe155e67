package io.headscope.app.cli;

import io.headscope.analysis.corpus.Corpus;
import io.headscope.analysis.corpus.CorpusReader;
import io.headscope.model.HeadScopeException;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The options of the corpus commands: the output file (checked before any model work) and batching. */
final class CorpusOptions {
  @Option(names = "--out", required = true, paramLabel = "FILE", description = "The CSV file to write.")
  Path out;

  @Option(names = "--force", description = "Overwrite an existing --out file.")
  boolean force;

  @Option(names = "--batch", defaultValue = "16", paramLabel = "N",
      description = "Inputs per forward pass (default 16).")
  int batch;

  /** Fails before any model work if the result could not be written. */
  void checkOut() {
    Output.checkWritable(out, force);
    if (batch < 1 || batch > 512) {
      throw new HeadScopeException("--batch must be between 1 and 512, got " + batch + ".");
    }
  }

  static Corpus read(Path corpus) {
    Corpus c = CorpusReader.read(corpus);
    CorpusProgress.reportProblems(c);
    return c;
  }
}
