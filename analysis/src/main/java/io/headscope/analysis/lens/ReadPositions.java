package io.headscope.analysis.lens;

import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.Readouts;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the model's output head is read: every [MASK] of a masked model, or a causal model's last token
 * (its guess at the next one). One place, so the lens and saliency read the same rows as {@code predict}.
 */
public final class ReadPositions {
  private ReadPositions() {}

  /** The id the engine's readouts take: the mask id, or {@link Readouts#NEXT_TOKEN} for a causal model. */
  public static long readoutId(BertModel model) {
    return model.config().family().causal() ? Readouts.NEXT_TOKEN : model.tokenizer().maskId();
  }

  /** The 0-based positions read, in order; a masked model's text without a mask is refused in one line. */
  public static int[] of(BertModel model, Encoding input) {
    if (!model.hasMaskedLmHead()) {
      throw new HeadScopeException(model.name() + " has no language-model head: there is nothing to read out.");
    }
    if (model.config().family().causal()) {
      return new int[] {input.length() - 1};
    }
    long mask = model.tokenizer().maskId();
    List<Integer> at = new ArrayList<>();
    for (int i = 0; i < input.length(); i++) {
      if (input.ids()[i] == mask) {
        at.add(i);
      }
    }
    if (at.isEmpty()) {
      String m = model.tokenizer().vocabToken(mask).strip();
      throw new HeadScopeException("The text has no " + m + ": put " + m + " where the word to follow should be.");
    }
    return at.stream().mapToInt(Integer::intValue).toArray();
  }
}
