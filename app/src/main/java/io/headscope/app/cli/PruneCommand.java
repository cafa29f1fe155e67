package io.headscope.app.cli;

import io.headscope.analysis.ablation.ClassifierTarget;
import io.headscope.analysis.ablation.MaskedLmTarget;
import io.headscope.analysis.ablation.PruneCsv;
import io.headscope.analysis.ablation.PruneTarget;
import io.headscope.analysis.ablation.Pruning;
import io.headscope.analysis.corpus.Shard;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadMask;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "prune", mixinStandardHelpOptions = true,
    description = {"Pruning curve (Michel et al. 2019): switch heads off cumulatively, --step of all heads at a time, "
        + "in the chosen order, and measure after each step (and before the first), as CSV: "
        + "step,heads_pruned,share_pruned,metric,pruned_heads (pruned_heads: every head off at that step, 1-based "
        + "layer-head, space-separated, in pruning order).",
        "The metric is accuracy on a labelled corpus for a model with a sequence-classification head, else the "
            + "masked-LM mean log-probability that ablate reports, on text (--metric chooses).",
        "Ctrl-C cancels and writes nothing."})
final class PruneCommand implements Callable<Integer> {
  @Option(names = "--corpus", required = true, paramLabel = "FILE", description = "A labelled corpus (text<TAB>label "
      + "or text_a<TAB>text_b<TAB>label) for accuracy; a text corpus (one input per line) for the masked-LM metric.")
  Path corpus;

  @Option(names = "--order", defaultValue = "importance", paramLabel = "importance|random|sweep",
      description = "importance (default): the least important remaining heads, importance re-estimated on the "
          + "pruned model after each step; random: a seeded permutation; sweep: by the single-head ablation delta of "
          + "the intact model, computed once, most harmless removal first.")
  String order;

  @Option(names = "--step", defaultValue = "0.1", paramLabel = "SHARE",
      description = "Share of all heads pruned per step (default 0.1; rounded half up, cumulatively).")
  double step;

  @Option(names = "--seed", defaultValue = "0", paramLabel = "N",
      description = "Seed of --order random and of the masked-LM metric's 15%% sample (default 0).")
  long seed;

  @Option(names = "--mode", defaultValue = "zero", paramLabel = "zero|uniform",
      description = "zero (default): a pruned head's attention is multiplied by 0; uniform: spread evenly.")
  String mode;

  @Option(names = "--metric", paramLabel = "accuracy|logprob", description = "accuracy (labelled corpus, needs a "
      + "classifier head) or logprob (masked-LM, needs a masked-LM head); default: accuracy when the model has a "
      + "classifier head.")
  String metric;

  // short inputs in small batches leave the matrix products small: 32 ran about 3 times faster than 8 on
  // bert-base with pairs of about 30 tokens
  @Option(names = "--batch", defaultValue = "32", paramLabel = "N",
      description = "Labelled inputs per forward and backward pass (default 32).")
  int batch;

  @Mixin CsvOutput output;

  @Mixin ModelOptions model;

  @Override
  public Integer call() {
    HeadMask.Mode m = UsageException.mode(mode);
    Pruning.Order o;
    try {
      o = Pruning.Order.parse(order);
    } catch (HeadScopeException e) {
      throw new UsageException("--order: " + e.getMessage(), e);
    }
    if (!(step > 0 && step <= 1)) {
      throw new UsageException("--step must be a share above 0 and at most 1 (0.1 = 10% of all heads), got " + step
          + ".");
    }
    if (batch < 1 || batch > 512) {
      throw new UsageException("--batch must be between 1 and 512, got " + batch + ".");
    }
    if (metric != null && !metric.equalsIgnoreCase("accuracy") && !metric.equalsIgnoreCase("logprob")) {
      throw new UsageException("--metric must be accuracy or logprob, got \"" + metric + "\".");
    }
    if (Files.isDirectory(corpus)) {
      throw new HeadScopeException(corpus + " is a folder; give a corpus file.");
    }
    if (!Files.exists(corpus)) { // a pipe (<(...), /dev/stdin) is no regular file, yet it exists
      throw new HeadScopeException("The corpus file " + corpus + " does not exist.");
    }
    output.check();
    try (BertModel bert = model.open();
        Cancellation cancel = Cancellation.onCtrlC()) {
      boolean accuracy = metric == null ? bert.hasClassifier() : metric.equalsIgnoreCase("accuracy");
      PruneTarget target;
      if (accuracy) {
        LabelledInputs labelled = LabelledInputs.read(bert, corpus, Shard.ALL);
        target = new ClassifierTarget(bert, labelled.inputs(), labelled.gold(), m, batch);
      } else {
        if (!bert.hasMaskedLmHead()) {
          throw new HeadScopeException(bert.name() + " has no masked-LM head, so masked-LM quality cannot be measured"
              + (bert.hasClassifier() ? "; give a labelled corpus (--metric accuracy)." : "."));
        }
        List<Encoding> text = textInputs(bert);
        target = new MaskedLmTarget(bert, text, seed, m);
      }
      Pruning.Curve curve;
      try (ProgressDisplay progress = ProgressDisplay.start("prune")) {
        curve = Pruning.run(target, bert.config().numHiddenLayers(), bert.config().numAttentionHeads(), o, step, seed,
            progress, cancel::requested);
      } catch (CancellationException e) {
        return Cancellation.cancelled(); // while the Ctrl-C hook still waits, so the line is printed
      }
      output.write(out -> PruneCsv.write(curve, out));
      System.err.print(summary(curve));
    }
    return 0;
  }

  private List<Encoding> textInputs(BertModel bert) {
    InputOptions in = new InputOptions();
    in.corpus = corpus;
    in.seed = seed;
    return in.encode(bert);
  }

  /** The curve on stderr, one step a line. */
  static String summary(Pruning.Curve c) {
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "headscope: pruning by %s order, %s after each "
        + "step:%n", c.order().name().toLowerCase(Locale.ROOT), c.metric()));
    for (Pruning.Step s : c.steps()) {
      b.append(String.format(Locale.ROOT, "headscope:   step %2d: %4d heads off (%5.1f%%)  %s %.4f%n", s.step(),
          s.headsPruned(), 100 * s.sharePruned(), c.metric(), s.metric()));
    }
    return b.toString();
  }
}
