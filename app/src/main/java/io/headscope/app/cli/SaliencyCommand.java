package io.headscope.app.cli;

import io.headscope.analysis.saliency.Baseline;
import io.headscope.analysis.saliency.IgRule;
import io.headscope.analysis.saliency.SaliencyCsv;
import io.headscope.analysis.saliency.SaliencyMetric;
import io.headscope.analysis.saliency.SaliencyResult;
import io.headscope.analysis.saliency.TokenSaliency;
import io.headscope.model.BertModel;
import io.headscope.model.tokenizer.Encoding;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "saliency", mixinStandardHelpOptions = true,
    description = {"Token saliency of log p(--target) (with --contrast: the logit difference target - contrast) at "
        + "every [MASK] (a causal model: the next token), with respect to the input embeddings (hook_embed). "
        + "CSV: position,token,score (0-based positions; a token's score sums its embedding's attribution over "
        + "the hidden dimension).",
        "grad-x-input: (x - baseline) . grad f(x); ig: integrated gradients from the baseline (--rule: Gauss-Legendre "
            + "quadrature by default, as Captum, or the midpoint rule); the "
            + "metric on the input and the baseline and IG's completeness error go to stderr."})
final class SaliencyCommand implements Callable<Integer> {
  @Mixin TextOptions sentence;

  @Option(names = "--target", required = true, paramLabel = "WORD", description = "The token whose log-probability is explained.")
  String target;

  @Option(names = "--contrast", paramLabel = "WORD", description = "Explain the logit difference target - contrast instead.")
  String contrast;

  @Option(names = "--method", defaultValue = "ig", paramLabel = "grad-x-input|ig", description = "Default ig.")
  String method;

  @Option(names = "--steps", defaultValue = "50", paramLabel = "N", description = "Integration steps for ig (default 50).")
  int steps;

  @Option(names = "--rule", defaultValue = "gauss-legendre", paramLabel = "gauss-legendre|midpoint",
      description = "How ig's path integral is summed from --steps gradients (default gauss-legendre).")
  String rule;

  @Option(names = "--baseline", defaultValue = "zero", paramLabel = "zero|mask",
      description = "zero embeddings (default), or the input with every non-special token replaced by the mask token.")
  String baseline;

  @Mixin CsvOutput output;

  @Mixin ModelOptions model;

  @Override
  public Integer call() {
    sentence.check();
    output.check();
    boolean ig = switch (method.toLowerCase(Locale.ROOT)) {
      case "ig" -> true;
      case "grad-x-input" -> false;
      default -> throw new UsageException("--method must be grad-x-input or ig, got \"" + method + "\".");
    };
    Baseline b = switch (baseline.toLowerCase(Locale.ROOT)) {
      case "zero" -> Baseline.ZERO;
      case "mask" -> Baseline.MASK;
      default -> throw new UsageException("--baseline must be zero or mask, got \"" + baseline + "\".");
    };
    IgRule igRule = IgRule.parse(rule);
    if (igRule == null) {
      throw new UsageException("--rule must be gauss-legendre or midpoint, got \"" + rule + "\".");
    }
    if (steps < 1 || steps > 10_000) {
      throw new UsageException("--steps must be between 1 and 10000, got " + steps + ".");
    }
    try (BertModel bert = model.open()) {
      Encoding input = bert.encode(sentence.text, sentence.pair);
      Warnings.truncation(input);
      long[] tc = bert.tokenizer().targetAndContrast(target, contrast);
      SaliencyMetric metric = SaliencyMetric.of(tc[0], tc[1]);
      TokenSaliency s = new TokenSaliency(bert);
      long start = System.nanoTime();
      SaliencyResult r;
      try (ProgressDisplay progress = ProgressDisplay.start("saliency")) {
        r = ig ? s.integratedGradients(input, metric, b, steps, igRule, share -> progress.progress("Step", share))
            : s.gradientTimesInput(input, metric, b);
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      output.write(o -> SaliencyCsv.write(r, o));
      System.err.printf(Locale.ROOT, "%s: f(input) %.6f, f(baseline %s) %.6f, sum of scores %.6f%s (%d tokens, %.2f s)%n",
          metric.kind().label, r.metricInput(), b.label, r.metricBaseline(), r.total(),
          ig ? String.format(Locale.ROOT, ", completeness error %.4f%% (%s, %d steps)", 100 * r.completenessError(),
              igRule.label, steps) : "",
          input.length(), seconds);
    }
    return 0;
  }
}
