package io.headscope.app.cli;

import io.headscope.analysis.corpus.LabelledCorpus;
import io.headscope.analysis.corpus.LabelledInput;
import io.headscope.analysis.corpus.Shard;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A labelled corpus read for a classifier and tokenized, for the task commands (ablate --task,
 * importance --task, prune): skipped lines reported as warnings, long inputs cut with one warning.
 *
 * @param lines each input's 1-based corpus line, to put shards back in corpus order
 */
record LabelledInputs(List<String> labels, List<Encoding> inputs, int[] gold, List<Integer> lines) {

  static LabelledInputs read(BertModel model, Path corpus, Shard shard) {
    if (!model.hasClassifier()) {
      throw new HeadScopeException(model.unreadClassifier().map(why -> why + ", but scoring a labelled corpus needs "
          + "the classifier.").orElse(model.name() + " has no sequence-classification head, so a labelled corpus "
          + "cannot be scored with it; give a fine-tuned classifier (./headscope finetune makes one)."));
    }
    LabelledCorpus c = LabelledCorpus.read(corpus, model.classLabels(), shard);
    CorpusProgress.reportProblems(c.name(), c.problems(), c.problemCount());
    List<Encoding> encoded = new ArrayList<>();
    List<Integer> lines = new ArrayList<>();
    int[] gold = new int[c.inputs().size()];
    int truncated = 0;
    for (LabelledInput in : c.inputs()) {
      Encoding e;
      try {
        e = model.encode(in.input().a(), in.input().b());
      } catch (HeadScopeException bad) {
        throw new HeadScopeException("Line " + in.line() + " of " + corpus + ": " + bad.getMessage(), bad);
      }
      truncated += e.wasTruncated() ? 1 : 0;
      gold[encoded.size()] = in.label();
      encoded.add(e);
      lines.add(in.line());
    }
    if (truncated > 0) {
      System.err.println("headscope: warning: " + truncated + " corpus lines were longer than the model's maximum "
          + "and were cut.");
    }
    return new LabelledInputs(c.labels(), encoded, gold, lines);
  }
}
