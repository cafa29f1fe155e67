package io.headscope.app.cli;

import io.headscope.analysis.shard.PartialFile;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;

/**
 * A command over a corpus that writes a CSV and can run as one shard of many: the options every such
 * command shares ({@code --out}/{@code --force}, {@code --model}/{@code --offline}, {@code --shard}).
 */
abstract class ShardableCommand implements Callable<Integer> {
  @Mixin CsvOutput output;

  @Mixin ModelOptions model;

  @Mixin ShardOption sharding;

  /**
   * The checks before any model work, in order: {@code --shard} goes with a corpus and the output can be
   * written. Returns the corpus's fingerprint for a shard's part, null for a whole run.
   */
  PartialFile.CorpusId checkBeforeTheWork(Path corpus) {
    sharding.requireCorpus(corpus);
    output.check();
    return sharding.given() ? PartialFile.fingerprint(corpus) : null;
  }

  /** One that also batches its corpus ({@code --batch}): the commands that pad inputs of mixed lengths. */
  abstract static class Batched extends ShardableCommand {
    @Mixin CorpusOptions batching;
  }
}
