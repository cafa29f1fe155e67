package io.headscope.analysis.shard;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.headscope.analysis.corpus.CorpusAnalysis;
import io.headscope.analysis.corpus.CorpusProblem;
import io.headscope.analysis.corpus.CorpusSums;
import io.headscope.analysis.corpus.Shard;
import io.headscope.analysis.heads.HeadAccumulator;
import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The partial result of {@code classify} and {@code token-types} (one shard's per-head sums, exact so
 * that the shards add up to the bits one run gives), and their merge. Records: one {@code run} line
 * (inputs analysed, lines skipped and the first of them), then one {@code head} line per head.
 */
public final class CorpusPartial {
  private CorpusPartial() {}

  public record Run(String type, int analysed, int skipped, int layers, int heads, List<CorpusProblem> problems) {}

  public record HeadSums(String type, int layer, int head, HeadAccumulator.State sums) {}

  /**
   * @param batch the batch size: a shard runs batches of the single run's plan, which depends on it, so
   *     the parts of one merge must share it (and the single run to compare with must use it too)
   */
  public static PartialFile.Contents part(String command, Shard shard, PartialFile.CorpusId corpus, int batch,
      CorpusSums s) {
    return part(command, shard, corpus, batch, HeadClassifier.Method.DEFAULT, s);
  }

  /**
   * @param method the classifier that decides the merged categories (a setting the parts must share)
   */
  public static PartialFile.Contents part(String command, Shard shard, PartialFile.CorpusId corpus, int batch,
      HeadClassifier.Method method, CorpusSums s) {
    List<Object> records = new ArrayList<>();
    records.add(new Run("run", s.analysed(), s.skipped(), s.layers(), s.heads(), s.problems()));
    for (HeadAccumulator a : s.acc()) {
      records.add(new HeadSums("head", a.head().layer(), a.head().head(), a.state()));
    }
    return new PartialFile.Contents(new PartialFile.Header(command, shard, s.model(), corpus,
        settings(batch, method)), records,
        s.analysed() + " inputs, " + s.skipped()
        + " lines skipped");
  }

  /** The settings a merge checks: the batch plan and the classifier (named only when not the default). */
  private static Map<String, String> settings(int batch, HeadClassifier.Method method) {
    return method == HeadClassifier.Method.DEFAULT ? Map.of("batch", String.valueOf(batch))
        : Map.of("batch", String.valueOf(batch), "classifier", method.name().toLowerCase(java.util.Locale.ROOT));
  }

  /** The shards' sums added up, in shard order. */
  public static CorpusSums merge(List<PartialFile.Part> parts) {
    CorpusSums total = null;
    for (PartialFile.Part p : parts) {
      CorpusSums s = read(p);
      total = total == null ? s : total.plus(s);
    }
    return total;
  }

  /** The merged result, summarised as the command summarises one run. */
  public static io.headscope.analysis.corpus.CorpusResult result(List<PartialFile.Part> parts) {
    String method = parts.get(0).header().settings().get("classifier");
    return CorpusAnalysis.summarise(merge(parts),
        new HeadClassifier(method == null ? HeadClassifier.Method.DEFAULT : HeadClassifier.Method.parse(method)));
  }

  private static CorpusSums read(PartialFile.Part p) {
    try {
      List<JsonNode> records = p.records();
      Run run = PartialFile.JSON.treeToValue(records.get(0), Run.class);
      if (!"run".equals(run.type()) || records.size() != 1 + run.layers() * run.heads()) {
        throw new IllegalArgumentException("records");
      }
      List<HeadAccumulator> acc = new ArrayList<>();
      for (int i = 1; i < records.size(); i++) {
        HeadSums h = PartialFile.JSON.treeToValue(records.get(i), HeadSums.class);
        Head expected = new Head((i - 1) / run.heads(), (i - 1) % run.heads());
        if (!expected.equals(new Head(h.layer(), h.head()))) {
          throw new IllegalArgumentException("head order");
        }
        acc.add(HeadAccumulator.of(expected, h.sums()));
      }
      return new CorpusSums(p.header().model(), p.header().corpus().file(), run.layers(), run.heads(), acc,
          run.analysed(), run.skipped(), run.problems());
    } catch (JsonProcessingException | RuntimeException e) {
      throw new HeadScopeException(p.path() + " is damaged (its sums cannot be read).", e);
    }
  }
}
