package io.headscope.app.cli;

import io.headscope.analysis.ablation.AblationCsv;
import io.headscope.analysis.ablation.AblationResult;
import io.headscope.analysis.ablation.AblationSweep;
import io.headscope.analysis.ablation.AblationTable;
import io.headscope.analysis.ablation.SignTest;
import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.analysis.ablation.TaskAblationCsv;
import io.headscope.analysis.ablation.TaskResult;
import io.headscope.analysis.ablation.TaskScores;
import io.headscope.analysis.ablation.TaskSweep;
import io.headscope.analysis.corpus.Shard;
import io.headscope.analysis.shard.PartialFile;
import io.headscope.analysis.shard.SweepPartial;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.tokenizer.Encoding;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "ablate", mixinStandardHelpOptions = true,
    description = {"Switch every head off alone (and with --layers every whole layer) and measure the masked-LM "
        + "quality each time, as CSV: layer,head,baseline_logprob,ablated_logprob,delta_logprob,baseline_acc,"
        + "ablated_acc,delta_acc (1-based; a whole-layer row has head *; natural logs; deltas are ablated minus intact).",
        "With --task, a sequence classifier on a labelled --corpus instead (text<TAB>label or text_a<TAB>text_b<TAB>"
            + "label): layer,head,baseline_accuracy,ablated_accuracy,delta_accuracy,baseline_f1,ablated_f1,delta_f1,"
            + "baseline_loglik,ablated_loglik,delta_loglik,inputs (macro-F1; mean natural log of the gold class's "
            + "probability), and on stderr how many heads help when removed with a one-sided sign test.",
        "Ctrl-C cancels and writes nothing."})
final class AblateCommand extends ShardableCommand {
  @Mixin InputOptions inputs;

  @Option(names = "--mode", defaultValue = "zero", paramLabel = "zero|uniform",
      description = "zero: multiply the head's attention by 0; uniform: spread it evenly over the tokens.")
  String mode;

  @Option(names = "--layers", description = "Also switch off each whole layer (rows with head *).")
  boolean layers;

  @Option(names = "--target", paramLabel = "WORD", description = "Follow this token at each [MASK] instead of the "
      + "intact model's top token (one wordpiece of the model's vocabulary).")
  String target;

  @Option(names = "--contrast", paramLabel = "WORD", description = "With --target: measure the target against "
      + "this token (logit-diff: z_target - z_contrast; prob: P(target) - P(contrast)).")
  String contrast;

  @Option(names = "--metric", paramLabel = "logprob|prob|logit-diff", description = "With --target: what to "
      + "measure (default logprob; logit-diff needs --contrast). The CSV's columns are named after it.")
  String metric;

  @Option(names = "--task", description = "Score a sequence-classification head on a labelled --corpus (accuracy, "
      + "macro-F1, gold log-likelihood) instead of masked-LM quality.")
  boolean task;

  @Option(names = "--batch", paramLabel = "N", description = "Inputs swept together (default 8; a layer's run holds "
      + "N x (heads + 1) rows). The masked-LM sweep puts only inputs of one length together, so every number is the "
      + "one the input gives alone, whatever N.")
  Integer batch;

  @Override
  public Integer call() {
    inputs.check();
    HeadMask.Mode m = UsageException.mode(mode);
    if (task) {
      return task(m);
    }
    int perBatch = perBatch();
    if (target == null && (contrast != null || metric != null)) {
      throw new UsageException("--contrast and --metric go with --target.");
    }
    TargetMetric.Kind kind = target == null ? null : UsageException.metric(metric == null ? "logprob" : metric);
    if (kind == TargetMetric.Kind.LOGIT_DIFF && contrast == null) {
      throw new UsageException("--metric logit-diff needs --contrast.");
    }
    Shard shard = sharding.shard();
    if (output.out != null && !sharding.given()) {
      Output.checkWritable(sidecar(output.out), output.force);
    }
    PartialFile.CorpusId id = checkBeforeTheWork(inputs.corpus);
    try (BertModel bert = model.open();
        Cancellation cancel = Cancellation.onCtrlC()) {
      long[] followed = kind == null ? null : bert.tokenizer().targetAndContrast(target, contrast);
      List<Encoding> encoded = inputs.encode(bert, shard);
      AblationSweep.Options options = new AblationSweep.Options(m, layers, inputs.seed);
      if (kind != null) {
        options = options.following(new TargetMetric(kind, followed[0], followed[1]));
      }
      AblationResult r;
      try (ProgressDisplay progress = ProgressDisplay.start("ablate")) {
        if (sharding.given()) {
          List<AblationResult> each = new AblationSweep(bert, perBatch).runEach(encoded, options, progress,
              cancel::requested);
          PartialOutput.write(output, SweepPartial.ablationPart(shard, bert.name(), id, settings(), inputs.lines, each), bert);
          return 0;
        }
        r = new AblationSweep(bert, perBatch).run(encoded, options, progress, cancel::requested);
      } catch (CancellationException e) {
        return Cancellation.cancelled(); // while the Ctrl-C hook still waits, so the line is printed
      }
      finish(r, new AblationCsv.Sweep(bert.name(), inputs.text, inputs.pair,
          inputs.corpus == null ? null : inputs.corpus.toString(), target, contrast, inputs.seed, false), output);
    }
    return 0;
  }

  /** --batch, or 8 inputs swept together (both sweeps), checked. */
  private int perBatch() {
    int n = batch == null ? AblationSweep.DEFAULT_BATCH : batch;
    if (n < 1 || n > 512) {
      throw new UsageException("--batch must be between 1 and 512, got " + n + ".");
    }
    return n;
  }

  /** The task sweep: a classifier on a labelled corpus. */
  private int task(HeadMask.Mode m) {
    if (inputs.corpus == null) {
      throw new UsageException("--task needs a labelled --corpus (text<TAB>label or text_a<TAB>text_b<TAB>label).");
    }
    if (target != null || contrast != null || metric != null) {
      throw new UsageException("--target, --contrast and --metric follow a masked-LM token; leave them out with --task.");
    }
    int perBatch = perBatch();
    Shard shard = sharding.shard();
    PartialFile.CorpusId id = checkBeforeTheWork(inputs.corpus);
    try (BertModel bert = model.open();
        Cancellation cancel = Cancellation.onCtrlC()) {
      LabelledInputs labelled = LabelledInputs.read(bert, inputs.corpus, shard);
      TaskSweep.Options options = new TaskSweep.Options(m, layers, perBatch);
      TaskResult r;
      try (ProgressDisplay progress = ProgressDisplay.start("ablate")) {
        TaskSweep sweep = new TaskSweep(bert);
        if (sharding.given()) {
          java.util.Map<String, String> settings = new java.util.LinkedHashMap<>();
          settings.put("mode", mode.toLowerCase(java.util.Locale.ROOT));
          settings.put("layers", String.valueOf(layers));
          settings.put("classes", String.valueOf(labelled.labels().size()));
          PartialOutput.write(output, SweepPartial.taskAblationPart(shard, bert.name(), id, settings, labelled.lines(),
              sweep.runEach(labelled.inputs(), labelled.gold(), options, progress, cancel::requested)), bert);
          return 0;
        }
        r = sweep.run(labelled.inputs(), labelled.gold(), options, progress, cancel::requested);
      } catch (CancellationException e) {
        return Cancellation.cancelled(); // while the Ctrl-C hook still waits, so the line is printed
      }
      finishTask(r, output);
    }
    return 0;
  }

  /** The task sweep's CSV and summary (of one run or of merged shards). */
  static void finishTask(TaskResult r, CsvOutput output) {
    output.write(o -> TaskAblationCsv.write(r, o));
    System.err.print(taskSummary(r));
  }

  /**
   * How many heads help when removed, by accuracy and by log-likelihood, each with the one-sided sign test
   * (METHODS.md, "Does removing a head help?"); whole layers are not counted.
   */
  static String taskSummary(TaskResult r) {
    StringBuilder b = new StringBuilder();
    TaskScores base = r.baseline();
    int all = r.layers() * r.heads();
    b.append(String.format(Locale.ROOT, "headscope: %d labelled input(s), %d classes; intact accuracy %.4f, "
        + "macro-F1 %.4f, mean gold log-likelihood %.4f%n", r.inputs(), r.classes(), base.accuracy(), base.macroF1(),
        base.loglik()));
    SignTest acc = SignTest.ofDeltas(r.delta(TaskScores::accuracy));
    b.append(String.format(Locale.ROOT, "headscope: %d of %d heads help when removed (accuracy up), %d hurt, %d "
        + "change nothing; sign test of %d changes (H0: up as likely as down), one-sided p = %.4g%n",
        acc.improved(), all, acc.worsened(), all - acc.improved() - acc.worsened(), acc.improved() + acc.worsened(),
        acc.pValue()));
    SignTest ll = SignTest.ofDeltas(r.delta(TaskScores::loglik));
    b.append(String.format(Locale.ROOT, "headscope: by gold log-likelihood: %d of %d heads help when removed, %d "
        + "hurt; one-sided p = %.4g%n", ll.improved(), all, ll.worsened(), ll.pValue()));
    double[][] d = r.delta(TaskScores::accuracy);
    Head worst = Head.all(r.layers(), r.heads()).stream()
        .min(java.util.Comparator.comparingDouble((Head h) -> d[h.layer()][h.head()])).orElseThrow();
    Head best = Head.all(r.layers(), r.heads()).stream()
        .max(java.util.Comparator.comparingDouble((Head h) -> d[h.layer()][h.head()])).orElseThrow();
    if (acc.improved() + acc.worsened() == 0) {
      b.append("headscope: no single head changes the accuracy when removed\n");
    } else {
      b.append(String.format(Locale.ROOT, "headscope: removing %s hurts accuracy most (%+.4f); removing %s helps "
          + "most (%+.4f)%n", worst, d[worst.layer()][worst.head()], best, d[best.layer()][best.head()]));
    }
    return b.toString();
  }

  /** What changes a shard's numbers: merge refuses parts that differ in any of these. */
  private java.util.Map<String, String> settings() {
    java.util.Map<String, String> s = new java.util.LinkedHashMap<>();
    s.put("mode", mode.toLowerCase(java.util.Locale.ROOT));
    s.put("layers", String.valueOf(layers));
    s.put("seed", String.valueOf(inputs.seed));
    s.put("target", target == null ? "" : target);
    s.put("contrast", contrast == null ? "" : contrast);
    s.put("metric", target == null ? "" : metric == null ? "logprob" : metric.toLowerCase(java.util.Locale.ROOT));
    return s;
  }

  /** The CSV, its sidecar and the summary of a sweep (or of merged shards). */
  static void finish(AblationResult r, AblationCsv.Sweep about, CsvOutput output) {
    AblationTable table = AblationTable.of(r);
    if (output.out == null) {
      output.write(o -> AblationCsv.ablation(table, o));
    } else {
      // the CSV and its description are one set: both or neither (a name too long for the sidecar's
      // temporary once left the CSV alone)
      io.headscope.model.store.AtomicOutput.writeSet(List.of(
          new io.headscope.model.store.AtomicOutput.Member(output.out, o -> AblationCsv.ablation(table, o)),
          new io.headscope.model.store.AtomicOutput.Member(sidecar(output.out),
              o -> AblationCsv.metadata(r, about, o))), output.force);
      System.err.println("headscope: wrote " + output.out);
      System.err.println("headscope: wrote " + sidecar(output.out));
    }
    summary(table);
  }

  /** The sweep's description beside its CSV: {@code ablation.csv.json}. */
  static java.nio.file.Path sidecar(java.nio.file.Path csv) {
    return csv.resolveSibling(csv.getFileName() + ".json");
  }

  private static void summary(AblationTable t) {
    AblationResult r = t.result();
    System.err.printf(Locale.ROOT, "headscope: %d input(s), %d position(s); intact %s %.4f, accuracy %.3f%n",
        r.inputs(), r.positions(), describe(r.metric()), r.baselineLogprob(), r.baselineAccuracy());
    Head worst = Head.all(r.layers(), r.heads()).stream()
        .min(java.util.Comparator.comparingDouble(h -> r.deltaLogprob(h.layer(), h.head()))).orElseThrow();
    System.err.printf(Locale.ROOT, "headscope: removing %s hurts most (%+.4f); %d head(s) help when removed%s%n",
        worst, r.deltaLogprob(worst.layer(), worst.head()), t.helpfulHeads().size(),
        t.helpfulHeads().isEmpty() ? "" : " (best: " + t.helpfulHeads().get(0) + ")");
    System.err.print(grid(t));
  }

  static String describe(String metric) {
    return switch (metric) {
      case "prob" -> "probability";
      case "prob_diff" -> "probability difference";
      case "logit_diff" -> "logit difference";
      default -> "log-probability";
    };
  }

  /**
   * The layers x heads table of deltas at a glance (the CSV has every number): one row per layer,
   * the sum of its heads' deltas, and with --layers the whole layer's own delta.
   */
  static String grid(AblationTable t) {
    AblationResult r = t.result();
    StringBuilder b = new StringBuilder("headscope: change in " + describe(r.metric()) + " when one head is off "
        + "(rows: layers, columns: heads; negative = the head raised it)\n");
    b.append(String.format(Locale.ROOT, "%5s", "L\\H"));
    for (int h = 1; h <= r.heads(); h++) {
      b.append(String.format(Locale.ROOT, " %7d", h));
    }
    b.append(String.format(Locale.ROOT, " | %7s%s%n", "sum", r.hasLayers() ? String.format(Locale.ROOT, " %7s", "layer") : ""));
    for (int l = 0; l < r.layers(); l++) {
      b.append(String.format(Locale.ROOT, "%5d", l + 1));
      for (int h = 0; h < r.heads(); h++) {
        b.append(String.format(Locale.ROOT, " %+7.3f", r.deltaLogprob(l, h)));
      }
      b.append(String.format(Locale.ROOT, " | %+7.3f", t.layerTotals()[l]));
      if (r.hasLayers()) {
        b.append(String.format(Locale.ROOT, " %+7.3f", r.layerLogprob()[l] - r.baselineLogprob()));
      }
      b.append('\n');
    }
    return b.toString();
  }
}
