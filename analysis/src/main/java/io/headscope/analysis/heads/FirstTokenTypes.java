package io.headscope.analysis.heads;

import io.headscope.model.HeadSummaries;
import java.util.ArrayList;
import java.util.List;

/**
 * A causal model's token types (issue 41): the first token's share of attention (the attention sink, which stands in
 * a decoder's views where [CLS] stands in BERT's), punctuation's and the rest's. Per head from a run's summaries: the
 * mean over query rows of the weight each key receives ({@link HeadSummaries#received}), summed by the key's type;
 * per layer the mean over its heads. Weights only: a trace of summaries keeps no value norms.
 *
 * <p>The first token is the sink whatever it is (Llama's BOS, GPT-2's first word); punctuation is {@link
 * TokenType#PUNCT}'s full stop and comma. What BERT calls [SEP] has no place here.
 */
public final class FirstTokenTypes {
  private FirstTokenTypes() {}

  /** One head's shares {first token, punctuation, other}, summing to 1 (the mean row sums to 1). */
  public static double[] shares(float[] received, List<String> tokens) {
    double[] shares = new double[3];
    for (int j = 0; j < received.length; j++) {
      boolean punct = TokenType.of(tokens.get(j)) == TokenType.PUNCT;
      shares[j == 0 ? 0 : punct ? 1 : 2] += received[j];
    }
    return shares;
  }

  /**
   * Per layer, the mean over its heads, with the first token in {@link TokenType#CLS}'s place of {@link
   * TokenTypeShares} (its colour and column in the charts), 0 under SEP, and no norm side ({@code norm} null).
   */
  public static List<LayerTokenTypes> perLayer(HeadSummaries s, List<String> tokens) {
    List<LayerTokenTypes> out = new ArrayList<>();
    for (int l = 0; l < s.layers(); l++) {
      double[] mean = new double[3];
      for (int h = 0; h < s.heads(); h++) {
        double[] x = shares(s.received()[l][h], tokens);
        for (int i = 0; i < 3; i++) {
          mean[i] += x[i] / s.heads();
        }
      }
      out.add(new LayerTokenTypes(l, new TokenTypeShares(mean[0], 0, mean[1], mean[2]), null));
    }
    return out;
  }
}
