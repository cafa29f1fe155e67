package io.headscope.analysis.shard;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.headscope.analysis.compare.ComparisonResult;
import io.headscope.analysis.compare.ComparisonSums;
import io.headscope.analysis.compare.HeadPairSums;
import io.headscope.analysis.compare.ModelComparison;
import io.headscope.analysis.corpus.CorpusProblem;
import io.headscope.analysis.corpus.Shard;
import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The partial result of {@code compare} (one shard's exact per-head sums in both models) and its merge,
 * as {@link CorpusPartial} does for classify: one {@code run} line, then one {@code head} line per head.
 * The header's model is A; B (its name), the batch and the classifier are settings the parts must share.
 */
public final class ComparePartial {
  private ComparePartial() {}

  public record Run(String type, int analysed, int skipped, int layers, int heads, List<CorpusProblem> problems) {}

  public record HeadSums(String type, int layer, int head, HeadPairSums.State sums) {}

  public static PartialFile.Contents part(Shard shard, PartialFile.CorpusId corpus, int batch,
      HeadClassifier.Method method, ComparisonSums s) {
    List<Object> records = new ArrayList<>();
    records.add(new Run("run", s.analysed(), s.skipped(), s.layers(), s.heads(), s.problems()));
    for (HeadPairSums h : s.sums()) {
      records.add(new HeadSums("head", h.head().layer(), h.head().head(), h.state()));
    }
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("with", s.modelB());
    settings.put("batch", String.valueOf(batch));
    settings.put("classifier", method.name().toLowerCase(Locale.ROOT));
    return new PartialFile.Contents(new PartialFile.Header("compare", shard, s.modelA(), corpus,
        settings), records,
        s.analysed() + " inputs, " + s.skipped()
        + " lines skipped");
  }

  /** The shards' sums added up and summarised as one run. */
  public static ComparisonResult result(List<PartialFile.Part> parts) {
    ComparisonSums total = null;
    for (PartialFile.Part p : parts) {
      ComparisonSums s = read(p);
      total = total == null ? s : total.plus(s);
    }
    String method = parts.get(0).header().settings().get("classifier");
    return ModelComparison.summarise(total, new HeadClassifier(HeadClassifier.Method.parse(method)));
  }

  private static ComparisonSums read(PartialFile.Part p) {
    try {
      List<JsonNode> records = p.records();
      Run run = PartialFile.JSON.treeToValue(records.get(0), Run.class);
      if (!"run".equals(run.type()) || records.size() != 1 + run.layers() * run.heads()) {
        throw new IllegalArgumentException("records");
      }
      List<HeadPairSums> sums = new ArrayList<>();
      for (int i = 1; i < records.size(); i++) {
        HeadSums h = PartialFile.JSON.treeToValue(records.get(i), HeadSums.class);
        Head expected = new Head((i - 1) / run.heads(), (i - 1) % run.heads());
        if (!expected.equals(new Head(h.layer(), h.head()))) {
          throw new IllegalArgumentException("head order");
        }
        sums.add(HeadPairSums.of(expected, h.sums()));
      }
      return new ComparisonSums(p.header().model(), p.header().settings().get("with"), p.header().corpus().file(),
          run.layers(), run.heads(), sums, run.analysed(), run.skipped(), run.problems());
    } catch (JsonProcessingException | RuntimeException e) {
      throw new HeadScopeException(p.path() + " is damaged (its sums cannot be read).", e);
    }
  }
}
