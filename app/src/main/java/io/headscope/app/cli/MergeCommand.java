package io.headscope.app.cli;

import io.headscope.analysis.linguistics.CorefHeads;
import io.headscope.analysis.linguistics.SyntaxAnalysis;
import io.headscope.analysis.shard.ComparePartial;
import io.headscope.analysis.shard.CorpusPartial;
import io.headscope.analysis.shard.PartialFile;
import io.headscope.analysis.shard.SweepPartial;
import io.headscope.analysis.shard.TreebankPartial;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

@Command(name = "merge", mixinStandardHelpOptions = true,
    description = {"Adds up the partial results of a corpus command run with --shard K/N (one per shard, "
        + "0/N to N-1/N, in any order) into the file one run over the whole corpus writes, byte for byte.",
        "Refuses parts of different commands, models, corpora (by SHA-256) or settings, a missing shard and a "
            + "shard given twice."})
final class MergeCommand implements Callable<Integer> {
  @Parameters(arity = "1..*", paramLabel = "PART", description = "The partial results (files written with --shard).")
  List<Path> parts;

  @Mixin CsvOutput output;

  @Override
  public Integer call() {
    // read and check every part before anything is written
    List<PartialFile.Part> all = PartialFile.readAll(parts);
    String command = all.get(0).header().command();
    output.check();
    switch (command) {
      case "classify" -> ClassifyCommand.finish(CorpusPartial.result(all), output);
      case "token-types" -> TokenTypesCommand.finish(CorpusPartial.result(all),
          all.get(0).header().settings().get(TokenTypesCommand.SPECIALS), output);
      case "ablate" -> {
        if (output.out != null) {
          Output.checkWritable(AblateCommand.sidecar(output.out), output.force);
        }
        SweepPartial.AblationMerge m = SweepPartial.mergeAblation(all);
        AblateCommand.finish(m.result(), m.about(), output);
      }
      case "ablate-task" -> AblateCommand.finishTask(SweepPartial.mergeTaskAblation(all), output);
      case "importance" -> {
        SweepPartial.ImportanceMerge m = SweepPartial.mergeImportance(all);
        ImportanceCommand.finish(m.importance(), m.sweep(), output);
      }
      case "importance-task" -> {
        SweepPartial.TaskImportanceMerge m = SweepPartial.mergeTaskImportance(all);
        ImportanceCommand.finishTask(m.importance(), m.sweep(), output);
      }
      case "layers" -> LayersCommand.finish(SweepPartial.mergeLayers(all), output);
      case "favor" -> {
        SweepPartial.FavorMerge m = SweepPartial.mergeFavor(all);
        FavorCommand.finish(m.result(), m.options(), output);
      }
      case "compare" -> CompareCommand.finish(ComparePartial.result(all), output, -1);
      case "syntax" -> {
        Path out = twoFiles(command, "-best");
        TreebankPartial.Merged<SyntaxAnalysis.Result> m = TreebankPartial.mergeSyntax(all);
        SyntaxCommand.finish(m.result(), m.skipped(), out, output.force);
      }
      case "coref" -> {
        Path out = twoFiles(command, "-baselines");
        TreebankPartial.Merged<CorefHeads.Result> m = TreebankPartial.mergeCoref(all);
        CorefCommand.finish(m.result(), m.skipped(), out, output.force);
      }
      default -> throw new UsageException(all.get(0).path() + " is a partial result of \"" + command
          + "\", which this HeadScope cannot merge.");
    }
    return 0;
  }

  /** syntax and coref write two files, the second beside --out: both must be writable. */
  private Path twoFiles(String command, String suffix) {
    if (output.out == null) {
      throw new UsageException("Merging " + command + " parts needs --out FILE (the second file goes beside it, with "
          + suffix + " before the extension).");
    }
    Output.checkWritable(SyntaxCommand.withSuffix(output.out, suffix), output.force);
    return output.out;
  }
}
