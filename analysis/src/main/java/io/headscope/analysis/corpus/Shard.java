package io.headscope.analysis.corpus;

/**
 * One of {@code count} slices of a corpus, so that one corpus can run on many machines: shard
 * {@code index} (0-based) takes the lines whose 0-based line number is {@code index} modulo
 * {@code count} (for a treebank: the sentences or documents in file order). Slicing by line rather
 * than by usable input means every shard sees and reports only its own skipped lines, and the
 * slices never depend on what the other shards found.
 */
public record Shard(int index, int count) {
  /** The whole corpus: one shard of one. */
  public static final Shard ALL = new Shard(0, 1);

  public Shard {
    if (count < 1 || index < 0 || index >= count) {
      throw new IllegalArgumentException("shard " + index + "/" + count);
    }
  }

  /** Whether this shard takes the item with this 0-based position (line number - 1 for a corpus file). */
  public boolean takes(long position) {
    return position % count == index;
  }

  /** Whether this shard takes the corpus line with this 1-based number. */
  public boolean takesLine(int line) {
    return takes(line - 1L);
  }

  public boolean isAll() {
    return count == 1;
  }

  /** {@code K/N}, as given on the command line. */
  @Override
  public String toString() {
    return index + "/" + count;
  }
}
