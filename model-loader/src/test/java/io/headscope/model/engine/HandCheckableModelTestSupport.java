package io.headscope.model.engine;

import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.Encoding;

/** Embeddings of a TinyBert input computed by hand: LayerNorm(word + position + type), gamma 1. */
final class HandCheckableModelTestSupport {
  private HandCheckableModelTestSupport() {}

  static float[][] embeddings(TinyBert tiny, Encoding input, int d) {
    float[][] out = new float[input.length()][];
    for (int j = 0; j < out.length; j++) {
      out[j] = embedding(tiny, input, j, d);
    }
    return out;
  }

  static float[] embedding(TinyBert tiny, Encoding input, int j, int d) {
    float[] word = tiny.tensor("embeddings.word_embeddings.weight");
    float[] pos = tiny.tensor("embeddings.position_embeddings.weight");
    float[] type = tiny.tensor("embeddings.token_type_embeddings.weight");
    float[] beta = tiny.tensor("embeddings.LayerNorm.bias");
    double[] x = new double[d];
    double mean = 0;
    for (int k = 0; k < d; k++) {
      x[k] = word[(int) input.ids()[j] * d + k] + pos[j * d + k] + type[(int) input.segments()[j] * d + k];
      mean += x[k] / d;
    }
    double var = 0;
    for (int k = 0; k < d; k++) {
      var += (x[k] - mean) * (x[k] - mean) / d;
    }
    float[] e = new float[d];
    for (int k = 0; k < d; k++) {
      e[k] = (float) ((x[k] - mean) / Math.sqrt(var + 1e-12) + beta[k]);
    }
    return e;
  }
}
