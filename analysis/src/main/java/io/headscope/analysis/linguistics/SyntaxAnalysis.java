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
   * The same over one shard: the shard's batches of the single run's plan ({@link WordMaps#run(BertModel,
   * List, Shard, java.util.function.Consumer, WordMaps.Progress, BooleanSupplier)}); sentences too long
   * for the model are counted by the shard that owns their number (index modulo N). Counts are integers,
   * so the shards' results add up to one run's ({@link DependencyHeads#add}); a shard may hold no sentence.
   */
  public static Result run(BertModel model, Treebank treebank, int maxSentences, boolean universal, Shard shard,
      WordMaps.Progress progress, BooleanSupplier cancelled) {
    List<Sentence> chosen = treebank.sentences();
    if (maxSentences > 0 && chosen.size() > maxSentences) {
      chosen = chosen.subList(0, maxSentences);
    }
    List<Sentence> used = new ArrayList<>();
    List<WordEncoding> inputs = new ArrayList<>();
    int tooLong = 0;
    for (int i = 0; i < chosen.size(); i++) {
      Sentence s = chosen.get(i);
      WordEncoding e = model.tokenizer().encodeWords(s.words().stream().map(Word::form).toList());
      if (!e.fits()) {
        tooLong += shard.takes(i) ? 1 : 0;
        continue;
      }
      used.add(s);
      inputs.add(e);
    }
    if (used.isEmpty() && shard.isAll()) {
      throw new HeadScopeException("No sentence of " + treebank.name() + " fits the model's "
          + model.tokenizer().maxLength() + " positions.");
    }
    DependencyHeads heads = new DependencyHeads(model.config().numHiddenLayers(),
        model.config().numAttentionHeads(), universal);
    int[] words = {0};
    WordMaps.run(model, inputs, shard, r -> {
      heads.add(used.get(r.index()), r.maps());
      words[0] += used.get(r.index()).size();
    }, progress, cancelled);
    return new Result(heads, heads.sentences(), words[0], tooLong);
  }
}
