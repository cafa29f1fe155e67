package io.headscope.app.cli;

import io.headscope.analysis.corpus.CorpusInput;
import io.headscope.analysis.corpus.Shard;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** One input (--text, --pair) or a corpus file (--corpus), for the commands that sweep heads. */
final class InputOptions {
  @Option(names = "--text", paramLabel = "TEXT",
      description = "One sentence (segment a). With [MASK]s, quality is measured there; otherwise at a seeded 15%% sample of its wordpieces.")
  String text;

  @Option(names = "--pair", paramLabel = "TEXT", description = "A second sentence (segment b) for --text.")
  String pair;

  @Option(names = "--corpus", paramLabel = "FILE",
      description = "UTF-8 text, one input per line; a TAB separates the two sentences of a pair. Results are averaged over the inputs.")
  Path corpus;

  @Option(names = "--seed", defaultValue = "0", paramLabel = "N",
      description = "Seed of the 15%% sample of wordpieces masked in inputs without [MASK] (default 0).")
  long seed;

  /** Checks the options before any model is loaded. */
  void check() {
    if ((text == null) == (corpus == null)) {
      throw new UsageException("Give either --text or --corpus (one of them).");
    }
    if (text != null) {
      ModelOptions.requireText(text, "--text");
    }
    if (pair != null) {
      if (corpus != null) {
        throw new UsageException("--pair goes with --text; in a --corpus file, put a TAB between the two sentences.");
      }
      ModelOptions.requireText(pair, "--pair");
    }
    if (corpus != null && Files.isDirectory(corpus)) {
      throw new HeadScopeException(corpus + " is a folder; give a corpus file (one input per line).");
    }
    if (corpus != null && !Files.exists(corpus)) { // a pipe (<(...), /dev/stdin) is no regular file, yet it exists
      throw new HeadScopeException("The corpus file " + corpus + " does not exist.");
    }
  }

  /** The 1-based corpus line of each input {@link #encode} returned, to put shards back in corpus order. */
  List<Integer> lines = new ArrayList<>();

  List<Encoding> encode(BertModel model) {
    return encode(model, Shard.ALL);
  }

  /** The inputs of one shard of the corpus (for --text, the one input), in corpus order. */
  List<Encoding> encode(BertModel model, Shard shard) {
    List<Encoding> out = new ArrayList<>();
    if (text != null) {
      Encoding e = model.encode(text, pair);
      Warnings.truncation(e);
      out.add(e);
      return out;
    }
    int truncated = 0;
    for (CorpusInput line : shard.isAll() ? CorpusOptions.read(corpus).inputs() : CorpusOptions.read(corpus, shard)) {
      Encoding e;
      try {
        e = model.encode(line.a(), line.b());
      } catch (HeadScopeException bad) {
        throw new HeadScopeException("Line " + line.line() + " of " + corpus + ": " + bad.getMessage(), bad);
      }
      truncated += e.wasTruncated() ? 1 : 0;
      out.add(e);
      lines.add(line.line());
    }
    if (truncated > 0) {
      System.err.println("headscope: warning: " + truncated + " corpus lines were longer than the model's maximum and were cut.");
    }
    return out;
  }
}
