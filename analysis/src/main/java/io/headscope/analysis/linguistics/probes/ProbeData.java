package io.headscope.analysis.linguistics.probes;

import io.headscope.analysis.linguistics.Sentence;
import io.headscope.analysis.linguistics.SyntaxAnalysis;
import io.headscope.analysis.linguistics.Treebank;
import io.headscope.analysis.linguistics.WordMaps;
import io.headscope.model.BertModel;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;

/** The probes' features of a treebank's sentences, through the same word-level maps as the head scores. */
public final class ProbeData {
  private ProbeData() {}

  /** Features of the sentences that fit the model, in file order, and how many did not fit. */
  public record Collected(List<PairAttention> sentences, int tooLong) {}

  /** Runs every sentence of {@code treebank} that fits the model. */
  public static Collected collect(BertModel model, Treebank treebank, WordMaps.Progress progress,
      BooleanSupplier cancelled) {
    SyntaxAnalysis.Inputs in = SyntaxAnalysis.encode(model, treebank.name(), treebank.sentences());
    Collector c = new Collector();
    WordMaps.run(model, in.encodings(), r -> c.accept(r.index(), in.used().get(r.index()), r.maps()), progress,
        cancelled);
    return new Collected(c.sentences(), in.tooLong());
  }

  /** Keeps each sentence's features at its index (the model runs them sorted by length). */
  public static final class Collector implements SyntaxAnalysis.EachSentence {
    private final SortedMap<Integer, PairAttention> out = new TreeMap<>();

    @Override
    public void accept(int index, Sentence sentence, float[][][][] maps) {
      out.put(index, PairAttention.of(sentence, maps));
    }

    /** Every sentence received, in file order. */
    public List<PairAttention> sentences() {
      return List.copyOf(out.values());
    }
  }
}
