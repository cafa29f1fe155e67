package io.headscope.app.cli;

import io.headscope.analysis.corpus.Shard;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Option;

/**
 * {@code --shard K/N} of the corpus commands: one of N processes (a Slurm array task, a GNU parallel
 * job) takes its N-th of the work (lines for the sweeps, batches of the single run's plan for the
 * batched commands) and writes a partial result, which {@code headscope merge} adds up with the others
 * into the file one run writes.
 */
final class ShardOption {
  private static final Pattern FORM = Pattern.compile("(\\d{1,18})/(\\d{1,18})");
  /** The most shards one corpus is split into. */
  static final int MAX_SHARDS = 1_000_000;

  @Option(names = "--shard", paramLabel = "K/N", description = "Run only shard K of N (K counts from 0: "
      + "0 <= K < N) and write a partial result (JSON lines) instead of the CSV; headscope merge adds the N parts up "
      + "into the file one run writes, byte for byte. ablate, importance, layers, favor: every N-th line of the "
      + "corpus starting at line K+1. classify, token-types, compare, syntax, coref: every N-th batch of the single run's "
      + "plan (each shard reads the whole corpus; give every shard the same --batch).")
  String text;

  /** The shard asked for, or {@link Shard#ALL} without the option. */
  Shard shard() {
    if (text == null) {
      return Shard.ALL;
    }
    Matcher m = FORM.matcher(text.strip());
    if (!m.matches()) {
      throw new UsageException("--shard must be K/N, two whole numbers with 0 <= K < N <= " + MAX_SHARDS
          + " (K counts from 0), got \"" + text + "\".");
    }
    long k = Long.parseLong(m.group(1));
    long n = Long.parseLong(m.group(2));
    if (n > MAX_SHARDS) {
      // a merge keeps a little per shard: a billion of them would run out of memory before it could say so
      throw new UsageException("--shard " + text + ": N must be at most " + MAX_SHARDS + " (a million machines).");
    }
    if (n < 1 || k >= n) {
      throw new UsageException("--shard " + text + ": K must be at least 0 and below N (K counts from 0, so the "
          + "shards of " + Math.max(n, 1) + " are 0/" + Math.max(n, 1) + " to " + (Math.max(n, 1) - 1) + "/"
          + Math.max(n, 1) + ").");
    }
    return new Shard((int) k, (int) n);
  }

  /** Refuses --shard without a corpus: one typed input is not split. */
  void requireCorpus(java.nio.file.Path corpus) {
    if (given() && corpus == null) {
      throw new UsageException("--shard goes with --corpus: one typed input is not split.");
    }
  }

  /** Whether --shard was given (a partial result is written instead of the CSV). */
  boolean given() {
    return text != null;
  }
}
