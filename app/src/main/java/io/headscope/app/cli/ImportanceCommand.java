package io.headscope.app.cli;

import io.headscope.analysis.ablation.AblationCsv;
import io.headscope.analysis.ablation.AblationResult;
import io.headscope.analysis.ablation.AblationSweep;
import io.headscope.analysis.ablation.ClassifierTarget;
import io.headscope.analysis.ablation.HeadImportance;
import io.headscope.analysis.ablation.ImportanceResult;
import io.headscope.analysis.ablation.ImportanceTable;
import io.headscope.analysis.ablation.TaskOutcome;
import io.headscope.analysis.ablation.TaskResult;
import io.headscope.analysis.ablation.TaskSweep;
import io.headscope.analysis.corpus.Shard;
import io.headscope.analysis.shard.PartialFile;
import io.headscope.analysis.shard.SweepPartial;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadMask;
import io.headscope.model.tokenizer.Encoding;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "importance", mixinStandardHelpOptions = true,
    description = {"Gradient head importance (Michel et al. 2019): |dLoss/dm_h| of the masked-LM loss (a causal "
        + "model's: the next-token loss), averaged over "
        + "the inputs, as CSV: layer,head,importance,importance_normalized,rank,sweep_delta_logprob (1-based; "
        + "normalised by the l2 norm within each layer; rank 1 = most important by raw importance).",
        "Unless --no-sweep, the ablation sweep of the same inputs is run too: its delta_logprob fills the last column "
            + "and Spearman's rank correlation of importance with |delta_logprob| is printed to stderr.",
        "With --task, the loss is a sequence classifier's cross-entropy of the gold class on a labelled --corpus "
            + "(text<TAB>label or text_a<TAB>text_b<TAB>label), and the comparison sweep is the task sweep (the last "
            + "column then holds its delta of the mean gold log-likelihood).",
        "Ctrl-C cancels and writes nothing."})
final class ImportanceCommand extends ShardableCommand {
  @Mixin InputOptions inputs;

  @Option(names = "--no-sweep", description = "Skip the comparison sweep (much faster; the last column stays empty).")
  boolean noSweep;

  @Option(names = "--task", description = "Use a sequence classifier's cross-entropy of the gold label on a "
      + "labelled --corpus as the loss.")
  boolean task;

  @Override
  public Integer call() {
    inputs.check();
    if (task) {
      return task();
    }
    Shard shard = sharding.shard();
    PartialFile.CorpusId id = checkBeforeTheWork(inputs.corpus);
    try (BertModel bert = model.open();
        Cancellation cancel = Cancellation.onCtrlC()) {
      List<Encoding> encoded = inputs.encode(bert, shard);
      ImportanceResult imp;
      AblationResult sweep = null;
      // the gradient costs about a sixth of the sweep per input
      try (ProgressDisplay progress = ProgressDisplay.start("importance")) {
        AblationSweep.Options options = new AblationSweep.Options(HeadMask.Mode.ZERO, false, inputs.seed);
        if (sharding.given()) {
          List<HeadImportance.Gradient> g = new HeadImportance(bert).gradients(encoded, inputs.seed,
              progress.part(0, noSweep ? 1 : 0.15), cancel::requested);
          List<AblationResult> each = noSweep ? null
              : new AblationSweep(bert).runEach(encoded, options, progress.part(0.15, 1), cancel::requested);
          java.util.Map<String, String> settings = new java.util.LinkedHashMap<>();
          settings.put("seed", String.valueOf(inputs.seed));
          settings.put("sweep", String.valueOf(!noSweep));
          PartialOutput.write(output, SweepPartial.importancePart(shard, bert.name(), id, settings, inputs.lines, g, each), bert);
          return 0;
        }
        imp = new HeadImportance(bert).run(encoded, inputs.seed, progress.part(0, noSweep ? 1 : 0.15),
            cancel::requested);
        if (!noSweep) {
          sweep = new AblationSweep(bert).run(encoded, options, progress.part(0.15, 1), cancel::requested);
        }
      } catch (CancellationException e) {
        return Cancellation.cancelled(); // while the Ctrl-C hook still waits, so the line is printed
      }
      finish(imp, sweep, output, bert.config().family().masked() ? "masked-LM loss" : "next-token loss",
          "|delta_logprob|");
    }
    return 0;
  }

  /** Importance with the classifier's cross-entropy of the gold label as the loss. */
  private int task() {
    if (inputs.corpus == null) {
      throw new UsageException("--task needs a labelled --corpus (text<TAB>label or text_a<TAB>text_b<TAB>label).");
    }
    Shard shard = sharding.shard();
    PartialFile.CorpusId id = checkBeforeTheWork(inputs.corpus);
    try (BertModel bert = model.open();
        Cancellation cancel = Cancellation.onCtrlC()) {
      LabelledInputs labelled = LabelledInputs.read(bert, inputs.corpus, shard);
      List<HeadImportance.Gradient> gradients;
      List<TaskOutcome> outcomes = null;
      try (ProgressDisplay progress = ProgressDisplay.start("importance")) {
        if (labelled.inputs().isEmpty()) { // a shard may hold no input
          gradients = List.of();
          outcomes = noSweep ? null : List.of();
        } else {
          gradients = new ClassifierTarget(bert, labelled.inputs(), labelled.gold(), HeadMask.Mode.ZERO, TASK_BATCH)
              .gradients(java.util.Set.of(), progress.part(0, noSweep ? 1 : 0.3), cancel::requested);
          if (!noSweep) {
            outcomes = new TaskSweep(bert).runEach(labelled.inputs(), labelled.gold(),
                new TaskSweep.Options(HeadMask.Mode.ZERO, false, TASK_BATCH), progress.part(0.3, 1),
                cancel::requested);
          }
        }
      } catch (CancellationException e) {
        return Cancellation.cancelled();
      }
      if (sharding.given()) {
        java.util.Map<String, String> settings = new java.util.LinkedHashMap<>();
        settings.put("sweep", String.valueOf(!noSweep));
        settings.put("classes", String.valueOf(labelled.labels().size()));
        PartialOutput.write(output, SweepPartial.taskImportancePart(shard, bert.name(), id, settings, labelled.lines(), gradients,
            outcomes), bert);
        return 0;
      }
      finishTask(HeadImportance.mean(gradients), outcomes == null ? null
          : TaskResult.of(outcomes, labelled.labels().size(), HeadMask.Mode.ZERO), output);
    }
    return 0;
  }

  /** The CSV and summary of importance --task (one run or merged shards); {@code sweep} is null without one. */
  static void finishTask(ImportanceResult imp, TaskResult sweep, CsvOutput output) {
    finish(imp, sweep == null ? null : asSweep(sweep), output, "classifier cross-entropy of the gold label",
        "|delta_loglik|");
  }

  /** Labelled inputs per backward pass (and per group of the comparison sweep). */
  private static final int TASK_BATCH = 32;

  /**
   * The task sweep in the shape the importance table reads: its "log-probability" is the mean gold-class
   * log-likelihood, its accuracy the task accuracy (no KL: zeros).
   */
  static AblationResult asSweep(TaskResult t) {
    double[][] ll = new double[t.layers()][t.heads()];
    double[][] acc = new double[t.layers()][t.heads()];
    for (int l = 0; l < t.layers(); l++) {
      for (int h = 0; h < t.heads(); h++) {
        ll[l][h] = t.headScores()[l][h].loglik();
        acc[l][h] = t.headScores()[l][h].accuracy();
      }
    }
    return new AblationResult(t.mode(), t.inputs(), t.inputs(), t.baseline().loglik(), t.baseline().accuracy(), ll,
        acc, new double[t.layers()][t.heads()], null, null, null);
  }

  /** The CSV and the summary of merged shards (which do not say the model's kind of loss); {@code sweep} is null without one. */
  static void finish(ImportanceResult imp, AblationResult sweep, CsvOutput output) {
    finish(imp, sweep, output, "loss", "|delta_logprob|");
  }

  private static void finish(ImportanceResult imp, AblationResult sweep, CsvOutput output, String loss,
      String delta) {
    ImportanceTable table = ImportanceTable.of(imp, sweep);
    output.write(o -> AblationCsv.importance(table, o));
    System.err.printf(Locale.ROOT, "headscope: %d input(s), mean %s %.4f nats%n", imp.inputs(), loss, imp.meanLoss());
    if (sweep != null) {
      System.err.printf(Locale.ROOT,
          "headscope: Spearman rank correlation of importance with the sweep's %s: %.3f (%d heads)%n",
          delta, table.spearman(), table.rows().size());
    }
  }
}
