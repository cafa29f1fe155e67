package io.headscope.app.cli;

import io.headscope.analysis.corpus.Shard;
import io.headscope.analysis.flow.LayerCompatibility;
import io.headscope.analysis.flow.LayerCompatibilityCsv;
import io.headscope.analysis.shard.PartialFile;
import io.headscope.analysis.shard.SweepPartial;
import io.headscope.model.BertModel;
import io.headscope.model.tokenizer.Encoding;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(name = "layers", mixinStandardHelpOptions = true,
    description = {"Which layers can stand in for which: the hidden state after layer i (0: the embeddings) fed into "
        + "layer j, skipping or repeating layers, scored as ablate scores masked-LM quality. CSV: from_layer,to_layer,"
        + "logprob,delta_logprob,top1_agreement,inputs (from_layer 0..L, to_layer 1..L; to = from + 1 is the intact "
        + "model; delta against it; top-1 agreement with the intact model's top tokens).",
        "Ctrl-C cancels and writes nothing."})
final class LayersCommand extends ShardableCommand {
  @Mixin InputOptions inputs;

  @Override
  public Integer call() {
    inputs.check();
    Shard shard = sharding.shard();
    PartialFile.CorpusId id = checkBeforeTheWork(inputs.corpus);
    try (BertModel bert = model.open();
        Cancellation cancel = Cancellation.onCtrlC()) {
      List<Encoding> encoded = inputs.encode(bert, shard);
      LayerCompatibility c;
      try (ProgressDisplay progress = ProgressDisplay.start("layers")) {
        if (sharding.given()) {
          PartialOutput.write(output, SweepPartial.layersPart(shard, bert.name(), id, java.util.Map.of("seed", String.valueOf(inputs.seed)),
              inputs.lines, LayerCompatibility.each(bert, encoded, inputs.seed, progress, cancel::requested)), bert);
          return 0;
        }
        c = LayerCompatibility.run(bert, encoded, inputs.seed, progress, cancel::requested);
      } catch (CancellationException e) {
        return Cancellation.cancelled();
      }
      finish(c, output);
    }
    return 0;
  }

  /** The CSV and the summary of a run (or of merged shards). */
  static void finish(LayerCompatibility c, CsvOutput output) {
    output.write(o -> LayerCompatibilityCsv.write(c, o));
    summary(c);
  }

  /** The matrix of deltas at a glance: rows the state fed in, columns the first layer run on it. */
  private static void summary(LayerCompatibility c) {
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT,
        "headscope: intact log-probability %.4f; change when h_i (rows) is fed into layer j (columns)%n", c.intact()));
    b.append(String.format(Locale.ROOT, "%5s", "i\\j"));
    for (int j = 1; j <= c.logprob()[0].length; j++) {
      b.append(String.format(Locale.ROOT, " %7d", j));
    }
    b.append('\n');
    for (int i = 0; i < c.logprob().length; i++) {
      b.append(String.format(Locale.ROOT, "%5d", i));
      for (int j = 1; j <= c.logprob()[i].length; j++) {
        b.append(String.format(Locale.ROOT, " %+7.2f", c.logprob()[i][j - 1] - c.intact()));
      }
      b.append('\n');
    }
    System.err.print(b);
  }
}
