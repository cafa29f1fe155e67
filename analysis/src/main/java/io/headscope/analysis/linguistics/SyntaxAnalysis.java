package io.headscope.analysis.linguistics;

import io.headscope.analysis.corpus.Shard;
import io.headscope.model.BertModel;
import io.headscope.model.HeadScopeException;
import io.headscope.model.tokenizer.WordEncoding;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/** {@link DependencyHeads} over a treebank: each sentence's words to the model, word-level maps back. */
public final class SyntaxAnalysis {
  private SyntaxAnalysis() {}

  /**
   * The scores of every head over the treebank's sentences (the first {@code maxSentences}, or all
   * when it is 0 or less); sentences longer than the model are skipped and counted.
   */
  public record Result(DependencyHeads heads, int sentences, int words, int tooLong) {}

  public static Result run(BertModel model, Treebank treebank, int maxSentences, boolean universal,
      WordMaps.Progress progress, BooleanSupplier cancelled) {
    return run(model, treebank, maxSentences, universal, Shard.ALL, progress, cancelled);
  }

  /**
   * The same over one shard: every N-th of the chosen sentences starting at the K-th (0-based). Counts
   * are integers, so the shards' results add up to one run's ({@link DependencyHeads#add}); a shard
   * may hold no sentence.
   */
  public static Result run(BertModel model, Treebank treebank, int maxSentences, boolean universal, Shard shard,
      WordMaps.Progress progress, BooleanSupplier cancelled) {
    List<Sentence> chosen = treebank.sentences();
    if (maxSentences > 0 && chosen.size() > maxSentences) {
      chosen = chosen.subList(0, maxSentences);
    }
    List<Sentence> mine = new ArrayList<>();
    for (int i = 0; i < chosen.size(); i++) {
      if (shard.takes(i)) {
        mine.add(chosen.get(i));
      }
    }
    chosen = mine;
    List<Sentence> used = new ArrayList<>();
    List<WordEncoding> inputs = new ArrayList<>();
    int tooLong = 0;
    int words = 0;
    for (Sentence s : chosen) {
      WordEncoding e = model.tokenizer().encodeWords(s.words().stream().map(Word::form).toList());
      if (!e.fits()) {
        tooLong++;
        continue;
      }
      used.add(s);
      inputs.add(e);
      words += s.size();
    }
    if (used.isEmpty() && shard.isAll()) {
      throw new HeadScopeException("No sentence of " + treebank.name() + " fits the model's "
          + model.tokenizer().maxLength() + " positions.");
    }
    DependencyHeads heads = new DependencyHeads(model.config().numHiddenLayers(),
        model.config().numAttentionHeads(), universal);
    WordMaps.run(model, inputs, r -> heads.add(used.get(r.index()), r.maps()), progress, cancelled);
    return new Result(heads, used.size(), words, tooLong);
  }
}
