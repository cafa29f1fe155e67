package io.headscope.analysis.ablation;

/**
 * A sequence classifier's quality on a labelled corpus (METHODS.md, "Task-level sweep").
 *
 * @param accuracy the share of inputs whose most probable class is the gold one
 * @param macroF1 the mean over classes of each class's F1 = 2TP / (2TP + FP + FN), over the classes
 *     that occur in the gold labels or in the predictions (scikit-learn's default); 0 with no input
 * @param loglik the mean natural log of the probability the classifier gives the gold class
 */
public record TaskScores(double accuracy, double macroF1, double loglik) {

  /**
   * The scores of predictions against gold labels.
   *
   * @param gold gold class per input
   * @param predicted predicted class per input
   * @param loglik log-probability of the gold class per input
   * @param classes the number of classes
   */
  public static TaskScores of(int[] gold, int[] predicted, double[] loglik, int classes) {
    int n = gold.length;
    if (predicted.length != n || loglik.length != n) {
      throw new IllegalArgumentException("gold, predictions and log-likelihoods differ in length");
    }
    long[] tp = new long[classes];
    long[] fp = new long[classes];
    long[] fn = new long[classes];
    int correct = 0;
    double ll = 0;
    for (int i = 0; i < n; i++) {
      if (gold[i] == predicted[i]) {
        correct++;
        tp[gold[i]]++;
      } else {
        fn[gold[i]]++;
        fp[predicted[i]]++;
      }
      ll += loglik[i];
    }
    double f1 = 0;
    int present = 0;
    for (int c = 0; c < classes; c++) {
      long denominator = 2 * tp[c] + fp[c] + fn[c];
      if (denominator > 0) { // the class occurs in the gold labels or in the predictions
        f1 += 2.0 * tp[c] / denominator;
        present++;
      }
    }
    return new TaskScores(n == 0 ? 0 : correct / (double) n, present == 0 ? 0 : f1 / present,
        n == 0 ? 0 : ll / n);
  }
}
