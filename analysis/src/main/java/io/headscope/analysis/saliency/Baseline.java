package io.headscope.analysis.saliency;

import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.tokenizer.Encoding;
import java.util.Set;

/** Where integrated gradients start: the input with nothing in it. */
public enum Baseline {
  /** Zero embeddings at every position. */
  ZERO("zero"),
  /**
   * The embeddings of the same input with every token but the special ones ([CLS], [SEP], ...) replaced by
   * the mask token: positions and segments kept, the words removed.
   */
  MASK("mask");

  public final String label;

  Baseline(String label) {
    this.label = label;
  }

  /** The baseline embeddings for {@code input}, (1, T, d). */
  public Activation of(BertModel model, Encoding input) {
    int d = model.config().hiddenSize();
    if (this == ZERO) {
      return new Activation(new float[input.length() * d], new int[] {1, input.length(), d});
    }
    long mask = model.tokenizer().maskId();
    if (!model.config().family().masked() || mask < 0) {
      throw new HeadScopeException(model.name() + " has no mask token: use the zero baseline.");
    }
    Set<Long> special = model.tokenizer().specialIds();
    long[] ids = input.ids().clone();
    for (int i = 0; i < ids.length; i++) {
      if (!special.contains(ids[i])) {
        ids[i] = mask;
      }
    }
    Encoding masked = new Encoding(input.tokens(), ids, input.segments(), input.secondStart(), 0);
    return model.run(RunRequest.of(masked).capture(Capture.points(HookPoint.Kind.EMBED))).cache().get(HookPoint.embed());
  }
}
