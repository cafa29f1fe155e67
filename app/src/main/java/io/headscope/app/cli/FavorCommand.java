package io.headscope.app.cli;

import io.headscope.analysis.corpus.Shard;
import io.headscope.analysis.favor.FavorAnalysis;
import io.headscope.analysis.favor.FavorCsv;
import io.headscope.analysis.favor.RandomFeatures;
import io.headscope.analysis.shard.PartialFile;
import io.headscope.analysis.shard.SweepPartial;
import io.headscope.model.BertModel;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "favor", mixinStandardHelpOptions = true,
    description = {"Which heads could linear attention replace: per head, the FAVOR+ (Performer) map's error against "
        + "the real map as the number of random features grows, for orthogonal (orf) and iid features, and with "
        + "--effect the masked-LM change with that head, its layer or every head on FAVOR+, beside switching the head off.",
        "CSV: layer,head,features,kind,map_error,map_error_sd,delta_logprob,off_delta_logprob,inputs (1-based; "
            + "map_error = mean over rows of the total-variation distance, mean and sd over draws; whole-layer rows "
            + "have head *, the whole model layer * and head *). Ctrl-C cancels and writes nothing."})
final class FavorCommand extends ShardableCommand {
  @Mixin InputOptions inputs;

  @Option(names = "--features", defaultValue = "16,32,64,128,256", split = ",", paramLabel = "M,...",
      description = "Numbers of random features (default 16,32,64,128,256).")
  int[] features;

  @Option(names = "--draws", defaultValue = "8", paramLabel = "R", description = "Draws of the features per head (default 8).")
  int draws;

  @Option(names = "--kind", defaultValue = "both", paramLabel = "orf|iid|both", description = "Which features (default both).")
  String kind;

  @Option(names = "--effect", description = "Also run the model with heads on FAVOR+ (slower).")
  boolean effect;

  @Override
  public Integer call() {
    inputs.check();
    List<RandomFeatures.Kind> kinds = switch (kind.toLowerCase(Locale.ROOT)) {
      case "orf" -> List.of(RandomFeatures.Kind.ORF);
      case "iid" -> List.of(RandomFeatures.Kind.IID);
      case "both" -> List.of(RandomFeatures.Kind.ORF, RandomFeatures.Kind.IID);
      default -> throw new UsageException("--kind must be orf, iid or both, got \"" + kind + "\".");
    };
    if (draws < 1 || draws > 1000) {
      throw new UsageException("--draws must be between 1 and 1000, got " + draws + ".");
    }
    if (features.length == 0 || Arrays.stream(features).anyMatch(m -> m < 1 || m > 1 << 16)) {
      throw new UsageException("--features must be numbers between 1 and 65536.");
    }
    if (Arrays.stream(features).distinct().count() < features.length) {
      // each m is a set of rows: a repeated one wrote every row twice
      throw new UsageException("--features names a number twice (" + Arrays.toString(features).replaceAll("[\\[\\] ]", "")
          + "); give each once.");
    }
    Shard shard = sharding.shard();
    PartialFile.CorpusId id = checkBeforeTheWork(inputs.corpus);
    try (BertModel bert = model.open();
        Cancellation cancel = Cancellation.onCtrlC()) {
      List<Encoding> encoded = inputs.encode(bert, shard);
      FavorAnalysis.Options options = new FavorAnalysis.Options(features, draws, inputs.seed, kinds, effect);
      FavorAnalysis.Result r;
      try (ProgressDisplay progress = ProgressDisplay.start("favor")) {
        if (sharding.given()) {
          PartialOutput.write(output, SweepPartial.favorPart(shard, bert.name(), id, options, inputs.lines,
              FavorAnalysis.each(bert, encoded, options, progress, cancel::requested)), bert);
          return 0;
        }
        r = FavorAnalysis.run(bert, encoded, options, progress, cancel::requested);
      } catch (CancellationException e) {
        return Cancellation.cancelled();
      }
      finish(r, options, output);
    }
    return 0;
  }

  /** The CSV and the summary of a run (or of merged shards). */
  static void finish(FavorAnalysis.Result r, FavorAnalysis.Options options, CsvOutput output) {
    output.write(o -> FavorCsv.write(r.rows(), o));
    summary(r, options.features(), options.kinds());
  }

  /** The ten most and least approximable heads at the middle m, and the full model's agreement. */
  private static void summary(FavorAnalysis.Result r, int[] features, List<RandomFeatures.Kind> kinds) {
    int middle = features[features.length / 2];
    RandomFeatures.Kind k = kinds.get(0);
    List<FavorAnalysis.Row> heads = new ArrayList<>(r.rows().stream()
        .filter(x -> x.head() > 0 && x.features() == middle && x.kind() == k).toList());
    heads.sort(Comparator.comparingDouble(FavorAnalysis.Row::mapError));
    System.err.printf(Locale.ROOT, "headscope: at m = %d (%s), most approximable: %s%n", middle, k.label(),
        names(heads.subList(0, Math.min(10, heads.size()))));
    List<FavorAnalysis.Row> worst = new ArrayList<>(heads.subList(Math.max(0, heads.size() - 10), heads.size()));
    java.util.Collections.reverse(worst);
    System.err.printf(Locale.ROOT, "headscope: at m = %d (%s), least approximable: %s%n", middle, k.label(), names(worst));
    if (r.fullModelAgreement() != null) {
      StringBuilder b = new StringBuilder();
      for (int mi = 0; mi < features.length; mi++) {
        for (int ki = 0; ki < kinds.size(); ki++) {
          b.append(String.format(Locale.ROOT, " m=%d %s %.1f%%;", features[mi], kinds.get(ki).label(),
              100 * r.fullModelAgreement()[mi][ki]));
        }
      }
      System.err.println("headscope: every head on FAVOR+, top token as the exact model's:" + b);
    }
  }

  private static String names(List<FavorAnalysis.Row> rows) {
    StringBuilder b = new StringBuilder();
    for (FavorAnalysis.Row x : rows) {
      b.append(String.format(Locale.ROOT, "%d-%d (%.3f) ", x.layer(), x.head(), x.mapError()));
    }
    return b.toString().trim();
  }
}
