package io.headscope.analysis.heads;

import io.headscope.model.HeadSummaries;
import java.util.ArrayList;
import java.util.List;

/**
 * Token types where Kovaleva's categories are withheld (causal models, encoder-decoders; issue 41): the first token's
 * share of attention (the attention sink, which stands in a decoder's views where [CLS] stands in BERT's), an
 * encoder-decoder's end token's ({@code </s>}, where the keys have one after the first), punctuation's and the rest's.
 * Per head from a run's summaries: the mean over query rows of the weight each key receives ({@link
 * HeadSummaries#received}), summed by the key's type; per layer the mean over its heads. Weights only: a trace of
 * summaries keeps no value norms. The app's panels and {@code headscope token-types} on a decoder read these.
 *
 * <p>The first token is the sink whatever it is (Llama's BOS, GPT-2's first word, T5's first source word);
 * punctuation is {@link TokenType#PUNCT}'s full stop and comma.
 */
public final class FirstTokenTypes {
  private FirstTokenTypes() {}

  /**
   * One head's shares {first token, end token, punctuation, other}, summing to 1 (the mean row sums to 1).
   *
   * @param keys the tokens the map's columns are (on a cross map, the source's)
   * @param endToken whether a key after the first of {@link TokenType#SEP}'s type ({@code </s>}) counts apart; when
   *     false its share is 0 and such a key counts as other
   */
  public static double[] shares(float[] received, List<String> keys, boolean endToken) {
    double[] shares = new double[4];
    for (int j = 0; j < received.length; j++) {
      TokenType type = TokenType.of(keys.get(j));
      shares[j == 0 ? 0 : endToken && type == TokenType.SEP ? 1 : type == TokenType.PUNCT ? 2 : 3] += received[j];
    }
    return shares;
  }

  /**
   * Per layer, the mean over its heads, the first token in {@link TokenType#CLS}'s place of {@link TokenTypeShares}
   * (its colour and column in the charts), the end token in SEP's, and no norm side ({@code norm} null).
   */
  public static List<LayerTokenTypes> perLayer(HeadSummaries s, List<String> keys, boolean endToken) {
    List<LayerTokenTypes> out = new ArrayList<>();
    for (int l = 0; l < s.layers(); l++) {
      double[] mean = new double[4];
      for (int h = 0; h < s.heads(); h++) {
        double[] x = shares(s.received()[l][h], keys, endToken);
        for (int i = 0; i < 4; i++) {
          mean[i] += x[i] / s.heads();
        }
      }
      out.add(new LayerTokenTypes(l, TokenTypeShares.of(mean), null));
    }
    return out;
  }
}
