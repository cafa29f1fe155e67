package io.headscope.app.cli;

import io.headscope.analysis.corpus.LabelledCorpus;
import io.headscope.analysis.corpus.LabelledInput;
import io.headscope.model.core.BertConfig;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.EpochReport;
import io.headscope.model.engine.FineTuneOptions;
import io.headscope.model.engine.TrainingExample;
import io.headscope.model.finetune.ClassifierFolder;
import io.headscope.model.finetune.FineTuning;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.tokenizer.BertTextEncoder;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "finetune", mixinStandardHelpOptions = true,
    description = {"Fine-tune a BERT into a sequence classifier (Hugging Face's BertForSequenceClassification: "
        + "pooler + linear head, cross-entropy, AdamW with linear warm-up and decay, dropout 0.1) on a labelled "
        + "file (text<TAB>label or text_a<TAB>text_b<TAB>label), and write it as a Hugging Face folder that every "
        + "command and the app load with --model DIR.",
        "The folder is written after every finished epoch; Ctrl-C keeps the last finished epoch."})
final class FinetuneCommand implements Callable<Integer> {
  @Mixin ModelOptions model;

  @Option(names = "--train", required = true, paramLabel = "FILE",
      description = "The labelled training file. Labels as the model's id2label names or integer ids; for a base "
          + "model the labels are the file's own (names sorted, or ids 0..max).")
  Path train;

  @Option(names = "--dev", paramLabel = "FILE",
      description = "A labelled file scored after each epoch (accuracy and macro-F1).")
  Path dev;

  @Option(names = "--epochs", defaultValue = "3", paramLabel = "E", description = "Passes over the training file "
      + "(default 3).")
  int epochs;

  @Option(names = "--lr", defaultValue = "2e-5", paramLabel = "LR", description = "Peak learning rate (default 2e-5).")
  double lr;

  @Option(names = "--batch", defaultValue = "16", paramLabel = "N", description = "Inputs per step (default 16).")
  int batch;

  @Option(names = "--max-length", paramLabel = "N", description = "Wordpieces per input, [CLS] and [SEP] "
      + "included; longer inputs are cut (default 128, or the model's positions if fewer).")
  Integer maxLength;

  @Option(names = "--warmup", defaultValue = "0.1", paramLabel = "SHARE",
      description = "Share of the steps over which the learning rate rises from 0 (default 0.1).")
  double warmup;

  @Option(names = "--weight-decay", defaultValue = "0.01", paramLabel = "WD",
      description = "AdamW's decoupled weight decay, not on biases and LayerNorm (default 0.01).")
  double weightDecay;

  @Option(names = "--seed", defaultValue = "42", paramLabel = "S",
      description = "Seeds the new head, the shuffling and the dropout (default 42): the same seed gives the same "
          + "model.")
  long seed;

  @Option(names = "--out", required = true, paramLabel = "DIR", description = "The model folder to write.")
  Path out;

  @Option(names = "--force", description = "Replace an existing model folder DIR.")
  boolean force;

  @Override
  public Integer call() {
    FineTuneOptions options;
    try {
      options = new FineTuneOptions(epochs, lr, batch, warmup, weightDecay, 0.1, seed);
    } catch (HeadScopeException e) {
      throw new UsageException(e.getMessage(), e);
    }
    if (maxLength != null && maxLength < BertTextEncoder.MIN_LENGTH) {
      throw new UsageException("--max-length must be at least " + BertTextEncoder.MIN_LENGTH + ", got " + maxLength
          + ".");
    }
    ModelRepository.standard().refuseInside(out);
    ClassifierFolder.check(out, force);
    ModelFiles files = model.files();
    BertConfig config = BertConfig.read(files.config());
    if (model.gelu != null) {
      config = config.withHiddenAct(model.gelu);
    }
    if (config.family() != io.headscope.model.core.Family.BERT) {
      throw new HeadScopeException("finetune builds BERT's sequence classifier (BertForSequenceClassification); "
          + files.name() + " is " + config.family().withArticle() + ", whose classifier head HeadScope does not build yet.");
    }
    if (maxLength == null) {
      maxLength = Math.min(128, config.maxPositionEmbeddings());
    } else if (maxLength > config.maxPositionEmbeddings()) {
      throw new UsageException("--max-length " + maxLength + " is more than the model's "
          + config.maxPositionEmbeddings() + " positions.");
    }
    List<String> labels = config.id2label().isEmpty() ? LabelledCorpus.labelsIn(train) : config.id2label();
    if (labels.size() < 2) {
      throw new HeadScopeException("The training file " + train + " has only one label (" + labels.get(0)
          + "); a classifier needs at least two.");
    }
    LabelledCorpus trainCorpus = LabelledCorpus.read(train, labels);
    CorpusProgress.reportProblems(trainCorpus.name(), trainCorpus.problems(), trainCorpus.problemCount());
    LabelledCorpus devCorpus = null;
    if (dev != null) {
      devCorpus = LabelledCorpus.read(dev, labels);
      CorpusProgress.reportProblems(devCorpus.name(), devCorpus.problems(), devCorpus.problemCount());
    }
    int[] cut = {0};
    List<TrainingExample> trainSet;
    List<TrainingExample> devSet = List.of();
    try (BertTextEncoder tokenizer = BertTextEncoder.open(files.tokenizer(), maxLength)) {
      trainSet = encode(tokenizer, trainCorpus, config, cut);
      if (devCorpus != null) {
        devSet = encode(tokenizer, devCorpus, config, cut);
      }
    }
    System.err.printf(Locale.ROOT, "headscope: fine-tuning %s on %d input(s), labels %s%s; %d step(s) per epoch%s%n",
        files.name(), trainSet.size(), String.join(", ", labels),
        devSet.isEmpty() ? "" : ", " + devSet.size() + " dev input(s)", options.stepsPerEpoch(trainSet.size()),
        cut[0] == 0 ? "" : "; " + cut[0] + " input(s) cut to " + maxLength + " wordpieces");
    FineTuning.Result r;
    try (Cancellation cancel = Cancellation.onCtrlC();
        ProgressDisplay progress = ProgressDisplay.start("finetune")) {
      int stepsPerEpoch = options.stepsPerEpoch(trainSet.size());
      r = FineTuning.run(files, config, labels, trainSet, devSet, options, out, force, new FineTuning.Listener() {
        @Override
        public void step(int epoch, int step, int steps, double meanLoss) {
          progress.progress(String.format(Locale.ROOT, "epoch %d/%d, loss %.4f", epoch, epochs, meanLoss),
              ((epoch - 1) * (double) stepsPerEpoch + step) / ((double) stepsPerEpoch * epochs));
        }

        @Override
        public void epochDone(EpochReport e) {
          System.err.println("headscope: " + describe(e) + "; wrote " + out);
          System.err.flush();
        }
      }, cancel::requested);
      if (r.cancelled() || cancel.requested()) {
        // also a Ctrl-C during the last epoch's write: the write finished, the JVM still exits 130, so say so
        if (r.epochs().isEmpty()) {
          return Cancellation.cancelled();
        }
        System.err.println("headscope: cancelled; " + out + " keeps epoch " + r.epochs().size() + " of " + epochs
            + ".");
        System.err.flush();
        return 130;
      }
    }
    return 0;
  }

  static String describe(EpochReport e) {
    String s = String.format(Locale.ROOT, "epoch %d/%d: training loss %.4f, training accuracy %.3f", e.epoch(),
        e.epochs(), e.meanLoss(), e.trainAccuracy());
    if (e.hasDev()) {
      s += String.format(Locale.ROOT, ", dev accuracy %.3f, dev macro-F1 %.3f", e.devAccuracy(), e.devMacroF1());
    }
    return s + String.format(Locale.ROOT, " (%.0f s: forward %.0f s, backward %.0f s, optimizer %.0f s)",
        e.seconds(), e.time().forward(), e.time().backward(), e.time().optimizer());
  }

  private static List<TrainingExample> encode(BertTextEncoder tokenizer, LabelledCorpus corpus, BertConfig config,
      int[] cut) {
    List<TrainingExample> out = new ArrayList<>();
    for (LabelledInput in : corpus.inputs()) {
      String a = in.input().a();
      String b = in.input().b();
      if (b != null && config.typeVocabSize() < 2) {
        throw new HeadScopeException(corpus.name() + " line " + in.line() + ": a pair, but the model has "
            + "type_vocab_size 1 (single sentences only).");
      }
      Encoding e;
      try {
        e = b == null ? tokenizer.encode(a) : tokenizer.encode(a, b);
      } catch (HeadScopeException ex) {
        System.err.println("headscope: warning: " + corpus.name() + ", line " + in.line() + ": " + ex.getMessage()
            + " Skipped.");
        continue;
      }
      cut[0] += e.wasTruncated() ? 1 : 0;
      out.add(new TrainingExample(e, in.label()));
    }
    return out;
  }
}
