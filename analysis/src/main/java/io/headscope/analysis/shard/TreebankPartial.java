package io.headscope.analysis.shard;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.headscope.analysis.corpus.Shard;
import io.headscope.analysis.linguistics.CorefHeads;
import io.headscope.analysis.linguistics.DependencyHeads;
import io.headscope.analysis.linguistics.SyntaxAnalysis;
import io.headscope.analysis.linguistics.Treebank;
import io.headscope.model.core.HeadScopeException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The partial results of {@code syntax} (a shard's sentences) and {@code coref} (a shard's windows):
 * one record of integer counts, which add up exactly, with the treebank's unusable sentences (the same
 * in every shard) for the report.
 */
public final class TreebankPartial {
  private TreebankPartial() {}

  public record SyntaxCounts(int sentences, int words, int tooLong, List<String> skipped, DependencyHeads.State heads) {}

  public record CorefCounts(List<String> skipped, CorefHeads.Result result) {}

  public static PartialFile.Contents syntaxPart(Shard shard, String model, PartialFile.CorpusId treebank,
      Map<String, String> settings, Treebank tb, SyntaxAnalysis.Result r) {
    return new PartialFile.Contents(new PartialFile.Header("syntax", shard, model, treebank, settings),
        List.of(new SyntaxCounts(r.sentences(), r.words(), r.tooLong(), tb.skipped(), r.heads().state())),
        r.sentences() + " sentences, " + r.words() + " words");
  }

  public static PartialFile.Contents corefPart(Shard shard, String model, PartialFile.CorpusId treebank,
      Map<String, String> settings, Treebank tb, CorefHeads.Result r) {
    return new PartialFile.Contents(new PartialFile.Header("coref", shard, model, treebank, settings),
        List.of(new CorefCounts(tb.skipped(), r)),
        r.windows() + " windows");
  }

  /** Merged syntax or coref parts: the summed result and the first part's skipped sentences. */
  public record Merged<R>(R result, List<String> skipped) {}

  public static Merged<SyntaxAnalysis.Result> mergeSyntax(List<PartialFile.Part> parts) {
    List<SyntaxCounts> counts = read(parts, SyntaxCounts.class);
    DependencyHeads heads = DependencyHeads.of(counts.get(0).heads());
    int sentences = counts.get(0).sentences();
    int words = counts.get(0).words();
    int tooLong = counts.get(0).tooLong();
    for (SyntaxCounts c : counts.subList(1, counts.size())) {
      heads.add(DependencyHeads.of(c.heads()));
      sentences += c.sentences();
      words += c.words();
      tooLong += c.tooLong();
    }
    if (sentences == 0) {
      throw new HeadScopeException("No sentence of " + parts.get(0).header().corpus().file()
          + " was analysed by any shard.");
    }
    return new Merged<>(new SyntaxAnalysis.Result(heads, sentences, words, tooLong), counts.get(0).skipped());
  }

  public static Merged<CorefHeads.Result> mergeCoref(List<PartialFile.Part> parts) {
    List<CorefCounts> counts = read(parts, CorefCounts.class);
    CorefHeads.Result r = CorefHeads.sum(counts.stream().map(CorefCounts::result).toList());
    if (r.windows() == 0) {
      throw new HeadScopeException("No window of " + parts.get(0).header().corpus().file()
          + " was analysed by any shard.");
    }
    return new Merged<>(r, counts.get(0).skipped());
  }

  /** The one record of each part, in shard order. */
  private static <T> List<T> read(List<PartialFile.Part> parts, Class<T> type) {
    List<T> out = new ArrayList<>();
    for (PartialFile.Part p : parts) {
      try {
        if (p.records().size() != 1) {
          throw new IllegalArgumentException("records");
        }
        out.add(PartialFile.JSON.treeToValue(p.records().get(0), type));
      } catch (JsonProcessingException | RuntimeException e) {
        throw new HeadScopeException(p.path() + " is damaged (its counts cannot be read).", e);
      }
    }
    return out;
  }
}
