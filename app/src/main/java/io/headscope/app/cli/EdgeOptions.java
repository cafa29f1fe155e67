package io.headscope.app.cli;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.analysis.causal.PatchInputs;
import io.headscope.analysis.circuits.Ablation;
import io.headscope.analysis.circuits.EdgeAnalysis;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.tokenizer.Encoding;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Option;

/** What {@code edges} and {@code circuit} share: the pair, the metric, the ablation and the scoring method. */
final class EdgeOptions {
  @Option(names = "--clean", required = true, paramLabel = "TEXT", description = "The input whose behaviour is "
      + "followed (with a [MASK] for a masked model).")
  String clean;

  @Option(names = "--corrupted", required = true, paramLabel = "TEXT", description = "The same number of tokens, "
      + "with the cue changed.")
  String corrupted;

  @Option(names = "--target", required = true, paramLabel = "WORD", description = "The token followed at [MASK].")
  String target;

  @Option(names = "--contrast", paramLabel = "WORD", description = "Measure the target against this token.")
  String contrast;

  @Option(names = "--metric", paramLabel = "logit-diff|logprob", description = "Default: logit-diff with "
      + "--contrast, else logprob.")
  String metric;

  @Option(names = "--method", defaultValue = "eap-ig", paramLabel = "eap|eap-ig|exact", description = "How edges are "
      + "scored: eap (one backward pass), eap-ig (integrated gradients along the input embeddings, --steps points; "
      + "the default), exact (edge patching, one edge at a time).")
  String method;

  @Option(names = "--steps", defaultValue = "20", paramLabel = "M", description = "EAP-IG's points on the path "
      + "(default 20).")
  int steps;

  @Option(names = "--ablation", defaultValue = "corrupted", paramLabel = "corrupted|mean", description = "What an "
      + "ablated edge carries: the sender's output on the corrupted input (default), or its mean over "
      + "--corrupted-set.")
  String ablation;

  @Option(names = "--corrupted-set", paramLabel = "FILE", description = "With --ablation mean: corrupted inputs, one "
      + "per line, each of the clean input's number of tokens.")
  Path corruptedSet;

  Ablation ablation() {
    return switch (ablation.trim().toLowerCase(Locale.ROOT)) {
      case "corrupted" -> Ablation.CORRUPTED;
      case "mean" -> Ablation.MEAN;
      default -> throw new UsageException("--ablation \"" + ablation + "\" is unknown: use corrupted or mean.");
    };
  }

  /** Checks what needs no model: one line for each mistake. */
  void check() {
    Ablation a = ablation();
    if (a == Ablation.MEAN && corruptedSet == null) {
      throw new UsageException("--ablation mean needs --corrupted-set FILE (corrupted inputs, one per line).");
    }
    if (a == Ablation.CORRUPTED && corruptedSet != null) {
      throw new UsageException("--corrupted-set goes with --ablation mean.");
    }
    if (steps < 1 || steps > 1000) {
      throw new UsageException("--steps must be between 1 and 1000, got " + steps + ".");
    }
    String m = method.trim().toLowerCase(Locale.ROOT);
    if (!m.equals("eap") && !m.equals("eap-ig") && !m.equals("exact")) {
      throw new UsageException("--method \"" + method + "\" is unknown: use eap, eap-ig or exact.");
    }
    kind();
    if (corruptedSet != null && !Files.isRegularFile(corruptedSet)) {
      throw new UsageException("--corrupted-set: " + corruptedSet + " is not a readable file.");
    }
  }

  String method() {
    return method.trim().toLowerCase(Locale.ROOT);
  }

  TargetMetric.Kind kind() {
    String name = metric == null ? contrast == null ? "logprob" : "logit-diff" : metric.trim().toLowerCase(Locale.ROOT);
    if (name.equals("prob") || name.equals("kl")) {
      throw new UsageException("--metric " + name + ": edges measure logit-diff or logprob (a sum of "
          + "log-probabilities, whose gradient EAP reads).");
    }
    TargetMetric.Kind k;
    try {
      k = TargetMetric.Kind.parse(name);
    } catch (HeadScopeException e) {
      throw new UsageException("--metric \"" + metric + "\" is unknown: use logit-diff or logprob.", e);
    }
    if (k == TargetMetric.Kind.LOGIT_DIFF && contrast == null) {
      throw new UsageException("--metric logit-diff needs --contrast.");
    }
    return k;
  }

  /** The analysis of this pair; the pair giving one metric is refused as {@code patch} refuses it. */
  EdgeAnalysis open(BertModel bert) {
    long[] tc = bert.tokenizer().targetAndContrast(target, contrast);
    TargetMetric m = new TargetMetric(kind(), tc[0], tc[1]);
    PatchInputs in = PatchInputs.of(bert, clean, corrupted);
    List<Encoding> set = null;
    if (corruptedSet != null) {
      set = new ArrayList<>();
      List<String> lines;
      try {
        lines = Files.readAllLines(corruptedSet, StandardCharsets.UTF_8);
      } catch (IOException | java.io.UncheckedIOException e) {
        throw new UsageException("--corrupted-set: " + corruptedSet + " could not be read as UTF-8 text ("
            + e.getClass().getSimpleName() + ").");
      }
      for (String line : lines) {
        if (!line.isBlank()) {
          set.add(bert.encode(line.strip(), null));
        }
      }
      if (set.isEmpty()) {
        throw new UsageException("--corrupted-set: " + corruptedSet + " has no inputs (one per line).");
      }
    }
    EdgeAnalysis a = EdgeAnalysis.of(bert, in, m, ablation(), set);
    if (a.clean() == a.corrupted()) {
      throw new HeadScopeException("The clean and the corrupted input give the same " + m.column() + " (" + a.clean()
          + "): there is nothing to recover; change the cue in the corrupted input.");
    }
    return a;
  }
}
