package io.headscope.analysis.linguistics;

import io.headscope.analysis.corpus.Shard;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
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

  /** Receives each scored sentence's word-level maps; {@code index} counts the scored sentences in file order. */
  @FunctionalInterface
  public interface EachSentence {
    void accept(int index, Sentence sentence, float[][][][] maps);

    EachSentence NONE = (index, sentence, maps) -> {};
  }

  /**
   * The sentences that fit the model, their encodings, and how many did not fit (of those the shard
   * owns).
   */
  public record Inputs(List<Sentence> used, List<WordEncoding> encodings, int tooLong) {}

  public static Result run(BertModel model, Treebank treebank, int maxSentences, boolean universal,
      WordMaps.Progress progress, BooleanSupplier cancelled) {
    return run(model, treebank, maxSentences, universal, Shard.ALL, progress, cancelled, EachSentence.NONE);
  }

  /** As above, handing every scored sentence's maps to {@code each} as well (the probes keep their features). */
  public static Result run(BertModel model, Treebank treebank, int maxSentences, boolean universal,
      WordMaps.Progress progress, BooleanSupplier cancelled, EachSentence each) {
    return run(model, treebank, maxSentences, universal, Shard.ALL, progress, cancelled, each);
  }

  /**
   * The same over one shard: the shard's batches of the single run's plan ({@link WordMaps#run(BertModel,
   * List, Shard, java.util.function.Consumer, WordMaps.Progress, BooleanSupplier)}); sentences too long
   * for the model are counted by the shard that owns their number (index modulo N). Counts are integers,
   * so the shards' results add up to one run's ({@link DependencyHeads#add}); a shard may hold no sentence.
   */
  public static Result run(BertModel model, Treebank treebank, int maxSentences, boolean universal, Shard shard,
      WordMaps.Progress progress, BooleanSupplier cancelled) {
    return run(model, treebank, maxSentences, universal, shard, progress, cancelled, EachSentence.NONE);
  }

  private static Result run(BertModel model, Treebank treebank, int maxSentences, boolean universal, Shard shard,
      WordMaps.Progress progress, BooleanSupplier cancelled, EachSentence each) {
    List<Sentence> chosen = treebank.sentences();
    if (maxSentences > 0 && chosen.size() > maxSentences) {
      chosen = chosen.subList(0, maxSentences);
    }
    Inputs in = encode(model, treebank.name(), chosen, shard);
    DependencyHeads heads = new DependencyHeads(model.config().numHiddenLayers(),
        model.config().numAttentionHeads(), universal);
    int[] words = {0};
    WordMaps.run(model, in.encodings(), shard, r -> {
      Sentence s = in.used().get(r.index());
      heads.add(s, r.maps());
      words[0] += s.size();
      each.accept(r.index(), s, r.maps());
    }, progress, cancelled);
    return new Result(heads, heads.sentences(), words[0], in.tooLong());
  }

  /**
   * Each sentence's words WordPiece-tokenized one by one; sentences longer than the model are left out
   * and counted.
   *
   * @throws HeadScopeException when no sentence fits
   */
  public static Inputs encode(BertModel model, String name, List<Sentence> sentences) {
    return encode(model, name, sentences, Shard.ALL);
  }

  private static Inputs encode(BertModel model, String name, List<Sentence> sentences, Shard shard) {
    List<Sentence> used = new ArrayList<>();
    List<WordEncoding> inputs = new ArrayList<>();
    int tooLong = 0;
    for (int i = 0; i < sentences.size(); i++) {
      Sentence s = sentences.get(i);
      WordEncoding e = model.tokenizer().encodeWords(s.words().stream().map(Word::form).toList());
      if (!e.fits()) {
        tooLong += shard.takes(i) ? 1 : 0;
        continue;
      }
      used.add(s);
      inputs.add(e);
    }
    if (used.isEmpty() && shard.isAll()) {
      throw new HeadScopeException("No sentence of " + name + " fits the model's "
          + model.tokenizer().maxLength() + " positions.");
    }
    return new Inputs(used, inputs, tooLong);
  }
}
