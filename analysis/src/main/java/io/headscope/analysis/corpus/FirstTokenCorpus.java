package io.headscope.analysis.corpus;

import io.headscope.analysis.heads.FirstTokenTypes;
import io.headscope.analysis.heads.LayerTokenTypes;
import io.headscope.analysis.heads.TokenTypeShares;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * A causal model's token types over a corpus ({@code headscope token-types} on a decoder): per layer the mean over
 * the analysed inputs of {@link FirstTokenTypes#perLayer} (the first token's share, the attention sink; punctuation's;
 * the rest's). Kovaleva's categories are withheld on causal models, so this runs no classifier; it reads the corpus
 * as {@link CorpusAnalysis} does (the same batches, skipped lines and progress).
 */
public final class FirstTokenCorpus {
  private final BertModel model;
  private final int batchSize;

  public FirstTokenCorpus(BertModel model, int batchSize) {
    if (batchSize < 1) {
      throw new IllegalArgumentException("batch size " + batchSize);
    }
    this.model = model;
    this.batchSize = batchSize;
  }

  /**
   * The per-layer means, with the lines skipped.
   *
   * @param perLayer the mean over inputs, the first token in {@link TokenTypeShares#cls}'s place, 0 under {@code
   *     sep}, no norm side
   */
  public record Result(String corpus, int analysed, int skipped, List<CorpusProblem> problems,
      List<LayerTokenTypes> perLayer) {}

  public Result run(CorpusLines lines, CorpusAnalysis.Progress progress, BooleanSupplier cancelled) {
    int layers = model.config().numHiddenLayers();
    double[][] sums = new double[layers][3];
    int[] inputs = {0};
    CorpusBatches.Outcome outcome = new CorpusBatches(model, batchSize, false).run(lines.name(), lines::next,
        in -> {}, lines::fractionRead, -1, progress, cancelled, traces -> {
          for (AttentionTrace t : traces) {
            List<LayerTokenTypes> one = FirstTokenTypes.perLayer(t.summaries(TraceRequest.DEFAULT_THUMBNAIL_SIDE),
                t.tokens(), false);
            for (int l = 0; l < layers; l++) {
              TokenTypeShares s = one.get(l).weight();
              sums[l][0] += s.cls();
              sums[l][1] += s.punct(); // a decoder's input has no end token: sep is 0
              sums[l][2] += s.other();
            }
            inputs[0]++;
          }
        });
    List<LayerTokenTypes> mean = new ArrayList<>();
    for (int l = 0; l < layers; l++) {
      mean.add(new LayerTokenTypes(l, new TokenTypeShares(sums[l][0] / inputs[0], 0, sums[l][1] / inputs[0],
          sums[l][2] / inputs[0]), null));
    }
    List<CorpusProblem> problems = new ArrayList<>(lines.problems());
    problems.addAll(outcome.problems());
    problems.sort(Comparator.comparingInt(CorpusProblem::line));
    return new Result(lines.name(), outcome.analysed(), lines.problemCount() + outcome.problemCount(), problems, mean);
  }
}
