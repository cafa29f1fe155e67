package io.headscope.analysis.heads;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.headscope.model.core.HeadScopeException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * A multinomial logistic model over named features: {@code p(c | x) = softmax_c(b_c + sum_f W_cf z_f)}
 * with each feature standardised, {@code z_f = (x_f - mean_f) / scale_f}. Read from and written to
 * JSON (plain numbers: nothing executable is ever deserialised).
 *
 * @param features the feature names, in the order of {@code x}
 * @param classes the class names, in the order of the output
 * @param mean per feature, subtracted before the weights
 * @param scale per feature, divided by after subtracting the mean (never 0)
 * @param weights {@code [class][feature]}
 * @param bias per class
 * @param l2 the L2 penalty it was trained with (for the record)
 * @param trainedOn where its training labels came from (for the record)
 */
public record LogisticModel(
    List<String> features,
    List<String> classes,
    double[] mean,
    double[] scale,
    double[][] weights,
    double[] bias,
    double l2,
    String trainedOn) {

  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  public LogisticModel {
    features = List.copyOf(features);
    classes = List.copyOf(classes);
    int f = features.size();
    int k = classes.size();
    if (mean.length != f || scale.length != f || weights.length != k || bias.length != k) {
      throw new HeadScopeException("A classifier model needs " + f + " means and scales and " + k
          + " weight rows and biases.");
    }
    for (double[] w : weights) {
      if (w.length != f) {
        throw new HeadScopeException("A classifier model's weight rows need " + f + " entries.");
      }
    }
    for (double s : scale) {
      if (!(s > 0) || !Double.isFinite(s)) {
        throw new HeadScopeException("A classifier model's feature scales must be positive: " + s);
      }
    }
  }

  /** Class probabilities for raw (unstandardised) features, summing to 1. */
  public double[] probabilities(double[] x) {
    int k = classes.size();
    double[] s = new double[k];
    double max = Double.NEGATIVE_INFINITY;
    for (int c = 0; c < k; c++) {
      double v = bias[c];
      for (int f = 0; f < x.length; f++) {
        v += weights[c][f] * (x[f] - mean[f]) / scale[f];
      }
      s[c] = v;
      max = Math.max(max, v);
    }
    double sum = 0;
    for (int c = 0; c < k; c++) {
      s[c] = Math.exp(s[c] - max); // shifted by the maximum so no exponent overflows
      sum += s[c];
    }
    for (int c = 0; c < k; c++) {
      s[c] /= sum;
    }
    return s;
  }

  /** The most probable class's index (the first on a tie). */
  public static int argmax(double[] p) {
    int best = 0;
    for (int c = 1; c < p.length; c++) {
      if (p[c] > p[best]) {
        best = c;
      }
    }
    return best;
  }

  public static LogisticModel read(InputStream in) throws IOException {
    return JSON.readValue(in, LogisticModel.class);
  }

  /** Writes the model as JSON through a temporary file in the same folder, then renames it. */
  public void write(Path file) throws IOException {
    Path tmp = Files.createTempFile(file.toAbsolutePath().getParent(), ".model", ".tmp");
    try {
      JSON.writeValue(tmp.toFile(), this);
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }
}
