package io.headscope.app.gui.screen;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.app.gui.session.Session;
import io.headscope.model.BertModel;

/**
 * What the sweep measures while no word is followed, in the words the Predictions panel and the Sweep screen
 * both use: the intact top token at the [MASK]s, else a 15% sample of the tokens (a causal model's next
 * tokens). "Intact top token" on GPT-2 named what the sweep did not measure (issue 40's walk-through: "the
 * intact top token is the most probable token at 0%").
 */
public final class DefaultMeasure {
  private DefaultMeasure() {}

  public static String words(Session session) {
    BertModel m = session.model();
    boolean causal = m != null && !m.config().family().masked();
    String mask = m == null ? null : m.maskToken();
    boolean masks = mask != null && session.trace() != null && session.trace().tokens().contains(mask);
    return TargetMetric.defaultWords(causal, masks);
  }
}
