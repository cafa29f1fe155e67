package io.headscope.model.finetune;

/**
 * Accuracy and macro-F1 of predicted labels against gold ones.
 *
 * @param accuracy share of inputs whose predicted label is the gold one
 * @param macroF1 mean over the labels that occur (in the gold labels or the predictions) of
 *     {@code F1 = 2 TP / (2 TP + FP + FN)}
 */
public record ClassificationScores(double accuracy, double macroF1, int inputs) {

  public static ClassificationScores of(int[] gold, int[] predicted, int labels) {
    if (gold.length != predicted.length || gold.length == 0) {
      throw new IllegalArgumentException("need as many predictions as gold labels, and some");
    }
    int[] tp = new int[labels];
    int[] fp = new int[labels];
    int[] fn = new int[labels];
    int right = 0;
    for (int i = 0; i < gold.length; i++) {
      if (gold[i] == predicted[i]) {
        right++;
        tp[gold[i]]++;
      } else {
        fp[predicted[i]]++;
        fn[gold[i]]++;
      }
    }
    double f1Sum = 0;
    int occurring = 0;
    for (int c = 0; c < labels; c++) {
      int denominator = 2 * tp[c] + fp[c] + fn[c];
      if (denominator > 0) {
        f1Sum += 2.0 * tp[c] / denominator;
        occurring++;
      }
    }
    return new ClassificationScores(right / (double) gold.length, f1Sum / occurring, gold.length);
  }

  /** The index of the largest logit of each row. */
  public static int[] argMax(float[][] logits) {
    int[] out = new int[logits.length];
    for (int i = 0; i < logits.length; i++) {
      int best = 0;
      for (int c = 1; c < logits[i].length; c++) {
        if (logits[i][c] > logits[i][best]) {
          best = c;
        }
      }
      out[i] = best;
    }
    return out;
  }
}
