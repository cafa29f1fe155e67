package io.headscope.app.cli;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.analysis.causal.ActivationPatching;
import io.headscope.analysis.causal.AttributionPatching;
import io.headscope.analysis.causal.PatchComparison;
import io.headscope.analysis.causal.PatchCsv;
import io.headscope.analysis.causal.PatchDirection;
import io.headscope.analysis.causal.PatchInputs;
import io.headscope.analysis.causal.PatchResult;
import io.headscope.analysis.causal.PatchSite;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "patch", mixinStandardHelpOptions = true,
    description = {"Activation patching: run the corrupted input with one clean activation put back (--direction "
        + "denoise) or the clean input with one corrupted activation put in (noise), for every head (its output, "
        + "or with --by q|k|v its queries, keys or values) or every layer x token of the residual stream (--by resid: "
        + "resid_pre, resid_mid, resid_post) or MLP output (--by mlp), and measure the target at [MASK] (a causal "
        + "model: its next token).",
        "CSV per head: layer,head,clean_M,corrupted_M,patched_M,[attribution,]recovered (1-based); per token: "
            + "stream,layer,position,token,corrupted_token,clean_M,corrupted_M,patched_M,recovered (layer 1-based, "
            + "position 0-based). M is the metric; recovered = (patched - corrupted) / (clean - corrupted).",
        "Ctrl-C cancels and writes nothing."})
final class PatchCommand implements Callable<Integer> {
  @Option(names = "--clean", required = true, paramLabel = "TEXT", description = "The input whose behaviour is "
      + "followed (with a [MASK] for a masked model).")
  String clean;

  @Option(names = "--corrupted", required = true, paramLabel = "TEXT", description = "The same number of tokens, "
      + "with the cue changed.")
  String corrupted;

  @Option(names = "--target", required = true, paramLabel = "WORD", description = "The token followed at [MASK] "
      + "(one wordpiece of the model's vocabulary).")
  String target;

  @Option(names = "--contrast", paramLabel = "WORD", description = "Measure the target against this token.")
  String contrast;

  @Option(names = "--metric", paramLabel = "logit-diff|logprob|prob", description = "Default: logit-diff with "
      + "--contrast, else logprob.")
  String metric;

  @Option(names = "--by", defaultValue = "head", paramLabel = "head|resid|q|k|v|mlp", description = "What is "
      + "patched (default head: each head's output, attn.hook_result).")
  String by;

  @Option(names = "--direction", defaultValue = "denoise", paramLabel = "denoise|noise",
      description = "denoise (default): corrupted run, clean value; noise: clean run, corrupted value.")
  String direction;

  @Option(names = "--attribution", description = "Also attribution patching's first-order estimate (per head: an "
      + "attribution column), its Spearman correlation with exact patching and the heads where they disagree most.")
  boolean attribution;

  @Mixin CsvOutput output;

  @Mixin ModelOptions model;

  @Override
  public Integer call() {
    List<PatchSite> sites = usage(() -> PatchSite.parse(by));
    PatchDirection d = usage(() -> PatchDirection.parse(direction));
    TargetMetric.Kind kind = UsageException.metric(metric == null ? contrast == null ? "logprob" : "logit-diff" : metric);
    if (kind == TargetMetric.Kind.LOGIT_DIFF && contrast == null) {
      throw new UsageException("--metric logit-diff needs --contrast.");
    }
    if (attribution && !sites.get(0).perHead()) {
      throw new UsageException("--attribution goes with --by head, q, k or v.");
    }
    output.check();
    try (BertModel bert = model.open();
        Cancellation cancel = Cancellation.onCtrlC()) {
      TargetMetric m = new TargetMetric(kind, bert.tokenizer().singleTokenId(target),
          contrast == null ? -1 : bert.tokenizer().singleTokenId(contrast));
      PatchInputs in = PatchInputs.of(bert, clean, corrupted);
      List<PatchResult> results = new ArrayList<>();
      long start = System.nanoTime();
      try (ProgressDisplay progress = ProgressDisplay.start("patch")) {
        if (sites.size() == 3) { // --by resid
          results.addAll(new ActivationPatching(bert).residualStream(in, m, d, progress, cancel::requested));
        } else {
          results.add(new ActivationPatching(bert).run(in, m, sites.get(0), d, progress, cancel::requested));
        }
      } catch (CancellationException e) {
        return Cancellation.cancelled();
      }
      double exactSeconds = (System.nanoTime() - start) / 1e9;
      if (attribution) {
        long t = System.nanoTime();
        PatchResult r = results.get(0);
        results.set(0, r.withAttribution(new AttributionPatching(bert).run(in, m, r.site(), d)));
        System.err.printf(Locale.ROOT, "headscope: attribution patching took %.2f s%n", (System.nanoTime() - t) / 1e9);
      }
      output.write(o -> PatchCsv.write(results, o));
      summary(results, exactSeconds);
    }
    return 0;
  }

  private static void summary(List<PatchResult> results, double seconds) {
    PatchResult first = results.get(0);
    System.err.printf(Locale.ROOT, "headscope: %s %s: clean %.4f, corrupted %.4f; exact patching (%s) took %.2f s%n",
        first.metric(), first.direction().label(), first.clean(), first.corrupted(),
        String.join(", ", results.stream().map(r -> r.site().label()).toList()), seconds);
    for (PatchResult r : results) {
      // denoising: the cell that restores most; noising: the one whose corruption loses most (lowest share)
      boolean denoise = r.direction() == PatchDirection.DENOISE;
      int[] most = r.mostTelling();
      int bl = most[0];
      int bc = most[1];
      System.err.printf(Locale.ROOT, "headscope: %s: %s at %s: recovered %.4f%n", r.site().label(),
          denoise ? "restores most" : "necessary most",
          r.site().perHead() ? "head " + (bl + 1) + "-" + (bc + 1)
              : "layer " + (bl + 1) + ", position " + bc + " (" + r.cleanTokens().get(bc) + ")", r.recovered(bl, bc));
      if (r.hasAttribution()) {
        PatchComparison cmp = PatchComparison.of(r, 3);
        System.err.printf(Locale.ROOT, "headscope: Spearman of attribution with exact patching over %d heads: %.4f%n",
            r.layers() * r.cells(), cmp.spearman());
        StringBuilder b = new StringBuilder("headscope: they disagree most at");
        for (PatchComparison.Disagreement x : cmp.disagreements()) {
          b.append(String.format(Locale.ROOT, " %s (exact rank %d, %.3f; attribution rank %d, %.3f)", x.head(),
              x.exactRank(), x.recovered(), x.attributedRank(), x.attributed()));
        }
        System.err.println(b);
      }
    }
  }

  /** An analysis parse error of an option as a usage error (exit 2). */
  private static <T> T usage(java.util.function.Supplier<T> parse) {
    try {
      return parse.get();
    } catch (UsageException e) {
      throw e;
    } catch (HeadScopeException e) {
      throw new UsageException(e.getMessage(), e);
    }
  }
}
