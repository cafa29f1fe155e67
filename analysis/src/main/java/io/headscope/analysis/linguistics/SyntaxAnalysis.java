package io.headscope.analysis.linguistics;

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

  /** Receives each scored sentence's word-level maps; {@code index} counts the scored sentences in file order. */
  @FunctionalInterface
  public interface EachSentence {
    void accept(int index, Sentence sentence, float[][][][] maps);

    EachSentence NONE = (index, sentence, maps) -> {};
  }

  /** The sentences that fit the model, their encodings, and how many did not fit. */
  public record Inputs(List<Sentence> used, List<WordEncoding> encodings, int tooLong) {}

  public static Result run(BertModel model, Treebank treebank, int maxSentences, boolean universal,
      WordMaps.Progress progress, BooleanSupplier cancelled) {
    return run(model, treebank, maxSentences, universal, progress, cancelled, EachSentence.NONE);
  }

  /** As above, handing every scored sentence's maps to {@code each} as well (the probes keep their features). */
  public static Result run(BertModel model, Treebank treebank, int maxSentences, boolean universal,
      WordMaps.Progress progress, BooleanSupplier cancelled, EachSentence each) {
    List<Sentence> chosen = treebank.sentences();
    if (maxSentences > 0 && chosen.size() > maxSentences) {
      chosen = chosen.subList(0, maxSentences);
    }
    Inputs in = encode(model, treebank.name(), chosen);
    DependencyHeads heads = new DependencyHeads(model.config().numHiddenLayers(),
        model.config().numAttentionHeads(), universal);
    WordMaps.run(model, in.encodings(), r -> {
      Sentence s = in.used().get(r.index());
      heads.add(s, r.maps());
      each.accept(r.index(), s, r.maps());
    }, progress, cancelled);
    int words = in.used().stream().mapToInt(Sentence::size).sum();
    return new Result(heads, in.used().size(), words, in.tooLong());
  }

  /**
   * Each sentence's words WordPiece-tokenized one by one; sentences longer than the model are left out
   * and counted.
   *
   * @throws HeadScopeException when no sentence fits
   */
  public static Inputs encode(BertModel model, String name, List<Sentence> sentences) {
    List<Sentence> used = new ArrayList<>();
    List<WordEncoding> inputs = new ArrayList<>();
    int tooLong = 0;
    for (Sentence s : sentences) {
      WordEncoding e = model.tokenizer().encodeWords(s.words().stream().map(Word::form).toList());
      if (!e.fits()) {
        tooLong++;
        continue;
      }
      used.add(s);
      inputs.add(e);
    }
    if (used.isEmpty()) {
      throw new HeadScopeException("No sentence of " + name + " fits the model's "
          + model.tokenizer().maxLength() + " positions.");
    }
    return new Inputs(used, inputs, tooLong);
  }
}
