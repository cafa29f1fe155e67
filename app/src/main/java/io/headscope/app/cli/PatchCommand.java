package io.headscope.app.cli;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.analysis.causal.ActivationPatching;
import io.headscope.analysis.causal.AttributionPatching;
import io.headscope.analysis.causal.PatchComparison;
import io.headscope.analysis.causal.PatchCsv;
import io.headscope.analysis.causal.PatchDirection;
import io.headscope.analysis.causal.PatchInputs;
import io.headscope.analysis.causal.PatchJson;
import io.headscope.analysis.causal.PatchMetric;
import io.headscope.analysis.causal.PatchResult;
import io.headscope.analysis.causal.PatchSite;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.store.AtomicOutput;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "patch", mixinStandardHelpOptions = true,
    description = {"Activation patching (with --by path: path patching, see --receivers): run the corrupted input with one clean activation put back (--direction "
        + "denoise) or the clean input with one corrupted activation put in (noise), for every head (its output, "
        + "or with --by q|k|v its queries, keys or values) or every layer x token of the residual stream (--by resid: "
        + "resid_pre, resid_mid, resid_post) or MLP output (--by mlp), and measure the target at [MASK] (a causal "
        + "model: its next token), or with --metric kl the divergence KL(P_clean || P_patched) of the whole output "
        + "distribution there.",
        "CSV per head: layer,head,clean_M,corrupted_M,patched_M,[attribution,]recovered (1-based); per token: "
            + "stream,layer,position,token,corrupted_token,clean_M,corrupted_M,patched_M,recovered (layer 1-based, "
            + "position 0-based). M is the metric; recovered = (patched - corrupted) / (clean - corrupted), for kl "
            + "1 - KL(clean||patched) / KL(clean||corrupted). With --out FILE, also FILE.json (patch.csv.json): the inputs, their "
            + "tokens, the settings and the grid of shares.",
        "Ctrl-C cancels and writes nothing."})
final class PatchCommand implements Callable<Integer> {
  @Option(names = "--clean", required = true, paramLabel = "TEXT", description = "The input whose behaviour is "
      + "followed (with a [MASK] for a masked model).")
  String clean;

  @Option(names = "--corrupted", required = true, paramLabel = "TEXT", description = "The same number of tokens, "
      + "with the cue changed.")
  String corrupted;

  @Option(names = "--target", paramLabel = "WORD", description = "The token followed at [MASK] "
      + "(one wordpiece of the model's vocabulary); needed by every metric but kl (which only reports it).")
  String target;

  @Option(names = "--contrast", paramLabel = "WORD", description = "Measure the target against this token.")
  String contrast;

  @Option(names = "--metric", paramLabel = "logit-diff|logprob|prob|kl", description = "Default: logit-diff with "
      + "--contrast, else logprob; kl: KL(P_clean || P_run) over the vocabulary, no target needed.")
  String metric;

  @Option(names = "--by", defaultValue = "head", paramLabel = "head|resid|q|k|v|mlp|path", description = "What is "
      + "patched (default head: each head's output, attn.hook_result); path: path patching from every sender head "
      + "into --receivers (CSV layer,head,patched,recovered).")
  String by;

  @Option(names = "--receivers", paramLabel = "logits|L-H:q|k|v[,...]", description = "With --by path: where the "
      + "paths end, the logits or heads' query, key or value inputs (1-based, e.g. 9-6:q,10-7:q); the senders are "
      + "every head of the layers before the first receiver.")
  String receivers;

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
    boolean path = by != null && by.trim().equalsIgnoreCase("path");
    if (path != (receivers != null)) {
      throw new UsageException(path ? "--by path needs --receivers (logits, or heads' inputs L-H:q|k|v[,...])."
          : "--receivers goes with --by path.");
    }
    if (path && attribution) {
      throw new UsageException("--attribution goes with --by head, q, k or v, not path.");
    }
    List<PatchSite> sites = path ? List.of(PatchSite.HEAD) : usage(() -> PatchSite.parse(by));
    PatchDirection d = usage(() -> PatchDirection.parse(direction));
    boolean kl = metric != null && metric.trim().equalsIgnoreCase("kl");
    TargetMetric.Kind kind = kl ? null : kind();
    if (kind == TargetMetric.Kind.LOGIT_DIFF && contrast == null) {
      throw new UsageException("--metric logit-diff needs --contrast.");
    }
    if (!kl && target == null) {
      throw new UsageException("--target is needed (every metric but --metric kl follows a target word).");
    }
    if (kl && contrast != null) {
      throw new UsageException("--metric kl compares whole distributions: it has no contrast word (drop --contrast).");
    }
    if (attribution && !sites.get(0).perHead()) {
      throw new UsageException("--attribution goes with --by head, q, k or v.");
    }
    if (attribution && kl) {
      // noising starts from the clean run, where KL(clean || run) is at its minimum and its gradient zero
      throw new UsageException("--attribution goes with logit-diff, logprob or prob, not kl.");
    }
    output.check();
    if (output.out != null) {
      Output.checkWritable(AblateCommand.sidecar(output.out), output.force);
    }
    try (BertModel bert = model.open();
        Cancellation cancel = Cancellation.onCtrlC()) {
      long[] tc = bert.tokenizer().targetAndContrast(target, contrast);
      TargetMetric followed = target == null ? null : new TargetMetric(kl ? TargetMetric.Kind.LOGPROB : kind, tc[0], tc[1]);
      PatchMetric m = kl ? PatchMetric.kl(followed) : PatchMetric.of(followed);
      if (path) {
        return PathPatchRun.run(this, bert, m, d, cancel);
      }
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
        results.set(0, r.withAttribution(new AttributionPatching(bert).run(in, m.target(), r.site(), d)));
        System.err.printf(Locale.ROOT, "headscope: attribution patching took %.2f s%n", (System.nanoTime() - t) / 1e9);
      }
      if (output.out == null) {
        output.write(o -> PatchCsv.write(results, o));
      } else {
        // the table and its description are one set, both or neither, as ablate writes them
        PatchJson.About about = new PatchJson.About(bert.name(), clean, corrupted, target, contrast, by);
        AtomicOutput.writeSet(List.of(new AtomicOutput.Member(output.out, o -> PatchCsv.write(results, o)),
            new AtomicOutput.Member(AblateCommand.sidecar(output.out), o -> PatchJson.write(results, m, about, o))),
            output.force);
        System.err.println("headscope: wrote " + output.out);
        System.err.println("headscope: wrote " + AblateCommand.sidecar(output.out));
      }
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

  /** {@code --metric}'s target kind (kl is taken apart before), one line naming kl too when unknown. */
  private TargetMetric.Kind kind() {
    String name = metric == null ? contrast == null ? "logprob" : "logit-diff" : metric;
    try {
      return TargetMetric.Kind.parse(name);
    } catch (HeadScopeException e) {
      throw new UsageException("--metric \"" + metric + "\" is unknown: use logit-diff, logprob, prob or kl.", e);
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
