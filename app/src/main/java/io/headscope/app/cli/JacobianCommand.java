package io.headscope.app.cli;

import io.headscope.analysis.flow.JacobianJson;
import io.headscope.analysis.flow.TokenJacobian;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.tokenizer.Encoding;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "jacobian", mixinStandardHelpOptions = true,
    description = {"Token-to-token Jacobian norms of every layer, J[layer][j][i] = ||d h_j / d h_i||_F from the "
        + "layer's input token i to its output token j (0-based layer = layer 1), beside the layer's mean attention "
        + "map and Kobayashi's norm-weighted map: JSON with tokens, ids, jacobian, method (exact or "
        + "random-projection), samples, seed and per layer the Spearman and Pearson correlations (off the "
        + "diagonal); the correlations also on stderr.",
        "Default: exact while it costs no more than on bert-base at " + TokenJacobian.DEFAULT_EXACT_MAX_TOKENS_BERT_BASE
            + " tokens (cost ~ layers x tokens^2 x hidden^3), else the random-projection estimate with "
            + TokenJacobian.DEFAULT_SAMPLES + " samples. Ctrl-C cancels and writes nothing."})
final class JacobianCommand implements Callable<Integer> {
  @Mixin TextOptions sentence;

  @Option(names = "--exact", description = "Exact: one backward pass per output token and coordinate, whatever "
      + "the length.")
  boolean exact;

  @Option(names = "--samples", paramLabel = "K", description = "The random-projection estimate with K Gaussian "
      + "vectors per output token, whatever the length.")
  Integer samples;

  @Option(names = "--seed", defaultValue = "0", paramLabel = "N", description = "Seed of the projection vectors.")
  long seed;

  @Option(names = "--disable", paramLabel = "HEADS", description = "Heads switched off first (5-4,8-10, a layer: 7 or L7, or a saved head set: @NAME).")
  String disable;

  @Option(names = "--mode", defaultValue = "zero", paramLabel = "zero|uniform", description = "How --disable switches off.")
  String mode;

  @Option(names = "--max-minutes", defaultValue = "30", paramLabel = "M", description = "Stop, writing nothing, when "
      + "the first backward passes show that the run would take longer than M minutes (default 30; 0: no limit).")
  double maxMinutes;

  @Mixin JsonOutput output;

  @Mixin ModelOptions model;

  @Override
  public Integer call() {
    sentence.check();
    if (exact && samples != null) {
      throw new UsageException("--exact and --samples do not go together: choose one.");
    }
    if (samples != null && samples < 1) {
      throw new UsageException("--samples must be at least 1, got " + samples + ".");
    }
    HeadMask.Mode m = UsageException.mode(mode);
    if (!(maxMinutes >= 0)) {
      throw new UsageException("--max-minutes must be 0 (no limit) or more, got " + maxMinutes + ".");
    }
    output.check();
    try (BertModel bert = model.open();
        Cancellation cancel = Cancellation.onCtrlC()) {
      Set<Head> off = UsageException.heads("--disable", disable, bert.config());
      Encoding e = bert.encode(sentence.text, sentence.pair);
      Warnings.truncation(e);
      int k = exact ? 0 : samples != null ? samples : TokenJacobian.defaultSamples(e, bert.config());
      System.err.println("headscope: " + (k == 0 ? "exact Jacobians (" + e.length() + " tokens x "
          + bert.config().hiddenSize() + " coordinates per layer)" : "random-projection estimate, k = " + k
          + " samples per output token" + (samples == null ? " (the default: exact would cost more than on bert-base at "
          + TokenJacobian.DEFAULT_EXACT_MAX_TOKENS_BERT_BASE + " tokens; this input has " + e.length() + "; --exact forces it)"
          : "")));
      TokenJacobian j;
      Estimate estimate = new Estimate(maxMinutes, k == 0 ? "--samples K (fewer, faster)"
          : "a smaller --samples");
      try (ProgressDisplay progress = ProgressDisplay.start("jacobian")) {
        j = TokenJacobian.of(bert, e, HeadMask.of(off, m), k, seed,
            f -> progress.progress("Backward passes, " + estimate.update(f), f), cancel::requested);
      } catch (Estimate.TooLong ex) {
        System.err.println("headscope: " + ex.getMessage());
        return 1;
      } catch (CancellationException ex) {
        return Cancellation.cancelled();
      }
      output.write(o -> JacobianJson.write(bert.name(), j, o));
      summary(j);
    }
    return 0;
  }

  /** The correlations per layer at a glance. */
  private static void summary(TokenJacobian j) {
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT,
        "headscope: %s%s; correlation of J (off the diagonal) with the layer's maps%n", j.method().label(),
        j.samples() > 0 ? ", k = " + j.samples() : ""));
    b.append(String.format(Locale.ROOT, "%5s %14s %14s %14s %14s%n", "layer", "spearman_attn", "pearson_attn",
        "spearman_norm", "pearson_norm"));
    for (var c : j.correlations()) {
      b.append(String.format(Locale.ROOT, "%5d %14.3f %14.3f %14.3f %14.3f%n", c.layer(), c.spearmanAttention(),
          c.pearsonAttention(), c.spearmanNorm(), c.pearsonNorm()));
    }
    System.err.print(b);
  }

  /**
   * The run's time, estimated from its first backward passes (their share of all of them is known): said
   * once, shown with the progress as the time left, and refused past --max-minutes before the long wait
   * (a 500-token input sat at "0%" for minutes of a run of hours).
   */
  static final class Estimate {
    private final double maxMinutes;
    private final String faster;
    private final long start = System.nanoTime();
    private boolean said;

    Estimate(double maxMinutes, String faster) {
      this.maxMinutes = maxMinutes;
      this.faster = faster;
    }

    /** After each chunk: the time left, in words; throws {@link TooLong} at the first when over the limit. */
    String update(double fraction) {
      double elapsed = (System.nanoTime() - start) / 1e9;
      if (!(fraction > 0)) {
        return "estimating the time";
      }
      double total = elapsed / fraction;
      if (!said) {
        said = true;
        if (maxMinutes > 0 && total > maxMinutes * 60) {
          throw new TooLong("jacobian: this run would take about " + words(total) + " (estimated from its first "
              + "backward passes), more than --max-minutes " + formatMinutes(maxMinutes) + "; nothing was written. "
              + "Raise --max-minutes (0: no limit) or use " + faster + ".");
        }
        System.err.println("headscope: jacobian: about " + words(total) + " in all");
      }
      return "about " + words(Math.max(0, total - elapsed)) + " left";
    }

    static String words(double seconds) {
      long s = Math.round(seconds);
      if (s < 60) {
        return s + " s";
      }
      if (s < 3600) {
        return (s / 60) + " min " + (s % 60) + " s";
      }
      return (s / 3600) + " h " + (s % 3600 / 60) + " min";
    }

    private static String formatMinutes(double m) {
      return m == Math.rint(m) ? String.valueOf((long) m) : String.valueOf(m);
    }

    static final class TooLong extends RuntimeException {
      TooLong(String message) {
        super(message);
      }
    }
  }
}
