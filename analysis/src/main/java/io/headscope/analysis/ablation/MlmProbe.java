package io.headscope.analysis.ablation;

import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Where an input's masked-LM quality is measured (METHODS.md, "Switching heads off"; issue 4).
 *
 * <p>If the input has {@code [MASK]} tokens, at those positions, against the intact model's top
 * token there ({@link Kind#MASKS}). Otherwise a seeded 15% sample of its wordpieces is replaced by
 * {@code [MASK]} all together, and the original tokens are the targets ({@link Kind#SAMPLED}); the
 * intact baseline then runs on that same masked input. A causal model (GPT-2) has no mask: its probe
 * reads, for a sample of tokens, the distribution at the token before, whose target is that token.
 *
 * @param input the input the model runs (with the sampled positions masked in the sampled case)
 * @param positions the measured token positions, ascending (for a causal model, those whose next token is
 *     predicted)
 * @param originals the original token ids at {@code positions} ({@link Kind#SAMPLED}); null for
 *     {@link Kind#MASKS}, whose targets come from the intact pass
 */
public record MlmProbe(Kind kind, Encoding input, int[] positions, long[] originals) {
  /** Michel et al. and BERT's pre-training mask 15% of the wordpieces. */
  public static final double SAMPLE_RATE = 0.15;

  public enum Kind {
    MASKS,
    SAMPLED
  }

  /**
   * The probe of one input. The sample depends only on the seed and the input's ids, so an input
   * gets the same positions wherever it sits in a corpus.
   */
  public static MlmProbe of(BertModel model, Encoding e, long seed) {
    if (!model.hasMaskedLmHead()) {
      throw new HeadScopeException(model.name()
          + " has no masked-LM head, so switching heads off cannot be measured by its predictions.");
    }
    if (!model.config().family().masked()) {
      return nextTokens(e, seed);
    }
    long mask = model.tokenizer().maskId();
    java.util.Set<Long> specials = model.tokenizer().specialIds();
    long[] ids = e.ids();
    List<Integer> masks = new ArrayList<>();
    List<Integer> wordpieces = new ArrayList<>();
    for (int i = 0; i < ids.length; i++) {
      if (ids[i] == mask) {
        masks.add(i);
      } else if (!specials.contains(ids[i])) {
        wordpieces.add(i);
      }
    }
    if (!masks.isEmpty()) {
      return new MlmProbe(Kind.MASKS, e, masks.stream().mapToInt(Integer::intValue).toArray(), null);
    }
    if (wordpieces.isEmpty()) {
      throw new HeadScopeException("The input has no word to mask: give a sentence.");
    }
    int k = Math.max(1, (int) Math.round(SAMPLE_RATE * wordpieces.size()));
    Collections.shuffle(wordpieces, new Random(seed * 0x9E3779B97F4A7C15L ^ Arrays.hashCode(ids)));
    int[] positions = wordpieces.subList(0, k).stream().mapToInt(Integer::intValue).sorted().toArray();
    long[] originals = new long[k];
    long[] maskedIds = ids.clone();
    List<String> tokens = new ArrayList<>(e.tokens());
    for (int i = 0; i < k; i++) {
      originals[i] = ids[positions[i]];
      maskedIds[positions[i]] = mask;
      tokens.set(positions[i], model.tokenizer().vocabToken(mask));
    }
    Encoding masked = new Encoding(tokens, maskedIds, e.segments(), e.secondStart(), e.droppedWordpieces());
    return new MlmProbe(Kind.SAMPLED, masked, positions, originals);
  }

  /**
   * The probe of a causal model's next token after the text: its distribution at the last token, against
   * the intact model's top token there, as a mask's ({@link Kind#MASKS}); for a followed target.
   */
  public static MlmProbe atLastToken(Encoding e) {
    return new MlmProbe(Kind.MASKS, e, new int[] {e.length() - 1}, null);
  }

  /**
   * A causal model's probe: it predicts token {@code p} from the tokens before it, so nothing is masked;
   * the distribution is read at {@code p - 1} and its target is token {@code p}, for a sample of
   * {@link #SAMPLE_RATE} of the tokens after the first (chosen as for a masked model).
   */
  private static MlmProbe nextTokens(Encoding e, long seed) {
    long[] ids = e.ids();
    if (ids.length < 2) {
      throw new HeadScopeException("The input has one token, so there is no next token to predict: give a sentence.");
    }
    List<Integer> predicted = new ArrayList<>();
    for (int p = 1; p < ids.length; p++) {
      predicted.add(p);
    }
    int k = Math.max(1, (int) Math.round(SAMPLE_RATE * predicted.size()));
    Collections.shuffle(predicted, new Random(seed * 0x9E3779B97F4A7C15L ^ Arrays.hashCode(ids)));
    int[] next = predicted.subList(0, k).stream().mapToInt(Integer::intValue).sorted().toArray();
    int[] positions = new int[k];
    long[] originals = new long[k];
    for (int i = 0; i < k; i++) {
      positions[i] = next[i] - 1;
      originals[i] = ids[next[i]];
    }
    return new MlmProbe(Kind.SAMPLED, e, positions, originals);
  }
}
