package io.headscope.analysis.shard;

import com.fasterxml.jackson.databind.JsonNode;
import io.headscope.analysis.ablation.AblationCsv;
import io.headscope.analysis.ablation.AblationResult;
import io.headscope.analysis.ablation.HeadImportance;
import io.headscope.analysis.ablation.ImportanceResult;
import io.headscope.analysis.ablation.TaskOutcome;
import io.headscope.analysis.ablation.TaskResult;
import io.headscope.analysis.corpus.Shard;
import io.headscope.analysis.favor.FavorAnalysis;
import io.headscope.analysis.favor.RandomFeatures;
import io.headscope.analysis.flow.LayerCompatibility;
import io.headscope.model.core.HeadMask;
import io.headscope.model.core.HeadScopeException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The partial results of {@code ablate} and {@code importance}: one record per input with its own
 * sweep (and gradient), tagged with its corpus line. These commands average per-input results in corpus
 * order with ordinary floating point; merge puts every shard's inputs back in that order and runs the
 * same averaging, so the merged file has the bits of one run. (An input costs seconds here, so a few
 * hundred numbers per input on disk are cheap.)
 */
public final class SweepPartial {
  private SweepPartial() {}

  public record AblationInput(int line, AblationResult result) {}

  public record ImportanceInput(int line, HeadImportance.Gradient gradient, AblationResult sweep) {}

  public record LayersInput(int line, LayerCompatibility.PerInput scores) {}

  public record TaskInput(int line, TaskOutcome outcome) {}

  public record TaskImportanceInput(int line, HeadImportance.Gradient gradient, TaskOutcome sweep) {}

  public record FavorInput(int line, FavorAnalysis.PerInput figures) {}

  /** Merged favor parts: the table and the options it was computed with (from the header). */
  public record FavorMerge(FavorAnalysis.Result result, FavorAnalysis.Options options) {}

  /** Merged ablate parts: the mean sweep and what the CSV's sidecar says about it. */
  public record AblationMerge(AblationResult result, AblationCsv.Sweep about) {}

  /** Merged importance parts: the mean gradients and, unless --no-sweep, the mean sweep (else null). */
  public record ImportanceMerge(ImportanceResult importance, AblationResult sweep) {}

  /** Merged importance --task parts: the mean gradients and, unless --no-sweep, the scored sweep (else null). */
  public record TaskImportanceMerge(ImportanceResult importance, TaskResult sweep) {}

  public static PartialFile.Contents favorPart(Shard shard, String model, PartialFile.CorpusId corpus,
      FavorAnalysis.Options o, List<Integer> lines, List<FavorAnalysis.PerInput> each) {
    Map<String, String> settings = new java.util.LinkedHashMap<>();
    settings.put("features", java.util.Arrays.toString(o.features()));
    settings.put("draws", String.valueOf(o.draws()));
    settings.put("seed", String.valueOf(o.seed()));
    settings.put("kinds", String.join(",", o.kinds().stream().map(k -> k.name()).toList()));
    settings.put("effect", String.valueOf(o.effect()));
    List<Object> records = new ArrayList<>();
    for (int i = 0; i < each.size(); i++) {
      records.add(new FavorInput(lines.get(i), each.get(i)));
    }
    return new PartialFile.Contents(new PartialFile.Header("favor", shard, model, corpus, settings),
        records,
        each.size() + " inputs");
  }

  /** Merges favor's parts into the CSV one run over the whole corpus writes (options from the header). */
  public static FavorMerge mergeFavor(List<PartialFile.Part> parts) {
    List<FavorInput> all = inputs(parts, FavorInput.class, FavorInput::line);
    Map<String, String> s = parts.get(0).header().settings();
    String f = s.get("features");
    int[] features = java.util.Arrays.stream(f.substring(1, f.length() - 1).split(",\\s*"))
        .mapToInt(Integer::parseInt).toArray();
    List<RandomFeatures.Kind> kinds = java.util.Arrays.stream(s.get("kinds").split(","))
        .map(RandomFeatures.Kind::valueOf).toList();
    FavorAnalysis.Options o = new FavorAnalysis.Options(features, Integer.parseInt(s.get("draws")),
        Long.parseLong(s.get("seed")), kinds, Boolean.parseBoolean(s.get("effect")));
    double[][][][][] err = all.get(0).figures().err();
    return new FavorMerge(FavorAnalysis.result(err.length, err[0].length, o,
        all.stream().map(FavorInput::figures).toList()), o);
  }

  public static PartialFile.Contents layersPart(Shard shard, String model, PartialFile.CorpusId corpus,
      Map<String, String> settings, List<Integer> lines, List<LayerCompatibility.PerInput> each) {
    List<Object> records = new ArrayList<>();
    for (int i = 0; i < each.size(); i++) {
      records.add(new LayersInput(lines.get(i), each.get(i)));
    }
    return new PartialFile.Contents(new PartialFile.Header("layers", shard, model, corpus, settings),
        records,
        each.size() + " inputs");
  }

  /** Merges layers' parts into the CSV one run over the whole corpus writes. */
  public static LayerCompatibility mergeLayers(List<PartialFile.Part> parts) {
    List<LayersInput> all = inputs(parts, LayersInput.class, LayersInput::line);
    return LayerCompatibility.mean(all.stream().map(LayersInput::scores).toList());
  }

  public static PartialFile.Contents ablationPart(Shard shard, String model, PartialFile.CorpusId corpus,
      Map<String, String> settings, List<Integer> lines, List<AblationResult> each) {
    List<Object> records = new ArrayList<>();
    for (int i = 0; i < each.size(); i++) {
      records.add(new AblationInput(lines.get(i), each.get(i)));
    }
    return new PartialFile.Contents(new PartialFile.Header("ablate", shard, model, corpus, settings),
        records,
        each.size() + " inputs swept");
  }

  public static PartialFile.Contents importancePart(Shard shard, String model, PartialFile.CorpusId corpus,
      Map<String, String> settings, List<Integer> lines, List<HeadImportance.Gradient> gradients,
      List<AblationResult> sweeps) {
    List<Object> records = new ArrayList<>();
    for (int i = 0; i < gradients.size(); i++) {
      records.add(new ImportanceInput(lines.get(i), gradients.get(i), sweeps == null ? null : sweeps.get(i)));
    }
    return new PartialFile.Contents(new PartialFile.Header("importance", shard, model, corpus, settings), records,
        gradients.size() + " inputs");
  }

  /** Merges ablate's parts into the CSV (and sidecar) one sweep of the whole corpus writes. */
  public static AblationMerge mergeAblation(List<PartialFile.Part> parts) {
    List<AblationInput> all = inputs(parts, AblationInput.class, AblationInput::line);
    PartialFile.Header h = parts.get(0).header();
    Map<String, String> s = h.settings();
    AblationResult r = AblationResult.mean(all.stream().map(AblationInput::result).toList());
    return new AblationMerge(r, new AblationCsv.Sweep(h.model(), null, null, h.corpus().file(), blankToNull(s.get("target")),
        blankToNull(s.get("contrast")), Long.parseLong(s.get("seed")), false));
  }

  public static PartialFile.Contents taskAblationPart(Shard shard, String model, PartialFile.CorpusId corpus,
      Map<String, String> settings, List<Integer> lines, List<TaskOutcome> each) {
    List<Object> records = new ArrayList<>();
    for (int i = 0; i < each.size(); i++) {
      records.add(new TaskInput(lines.get(i), each.get(i)));
    }
    return new PartialFile.Contents(new PartialFile.Header("ablate-task", shard, model, corpus, settings),
        records,
        each.size() + " labelled inputs swept");
  }

  /**
   * Merges the task sweep's parts: the scores are computed from every input's outcome in corpus order, as
   * one run does (macro-F1 is not a mean over inputs, so outcomes are kept, not scores).
   */
  public static TaskResult mergeTaskAblation(List<PartialFile.Part> parts) {
    List<TaskInput> all = inputs(parts, TaskInput.class, TaskInput::line);
    Map<String, String> s = parts.get(0).header().settings();
    return TaskResult.of(all.stream().map(TaskInput::outcome).toList(),
        Integer.parseInt(s.get("classes")), HeadMask.Mode.parse(s.get("mode")));
  }

  public static PartialFile.Contents taskImportancePart(Shard shard, String model, PartialFile.CorpusId corpus,
      Map<String, String> settings, List<Integer> lines, List<HeadImportance.Gradient> gradients,
      List<TaskOutcome> sweeps) {
    List<Object> records = new ArrayList<>();
    for (int i = 0; i < gradients.size(); i++) {
      records.add(new TaskImportanceInput(lines.get(i), gradients.get(i), sweeps == null ? null : sweeps.get(i)));
    }
    return new PartialFile.Contents(new PartialFile.Header("importance-task", shard, model, corpus, settings), records,
        gradients.size() + " labelled inputs");
  }

  /** Merges importance --task's parts: gradients averaged and the sweep scored in corpus order, as one run. */
  public static TaskImportanceMerge mergeTaskImportance(List<PartialFile.Part> parts) {
    List<TaskImportanceInput> all = inputs(parts, TaskImportanceInput.class, TaskImportanceInput::line);
    Map<String, String> s = parts.get(0).header().settings();
    ImportanceResult imp = HeadImportance.mean(all.stream().map(TaskImportanceInput::gradient).toList());
    TaskResult sweep = Boolean.parseBoolean(s.get("sweep"))
        ? TaskResult.of(all.stream().map(TaskImportanceInput::sweep).toList(), Integer.parseInt(s.get("classes")),
            HeadMask.Mode.ZERO)
        : null;
    return new TaskImportanceMerge(imp, sweep);
  }

  /** Merges importance's parts into the CSV one run over the whole corpus writes. */
  public static ImportanceMerge mergeImportance(List<PartialFile.Part> parts) {
    List<ImportanceInput> all = inputs(parts, ImportanceInput.class, ImportanceInput::line);
    ImportanceResult imp = HeadImportance.mean(all.stream().map(ImportanceInput::gradient).toList());
    boolean sweep = Boolean.parseBoolean(parts.get(0).header().settings().get("sweep"));
    AblationResult r = sweep ? AblationResult.mean(all.stream().map(ImportanceInput::sweep).toList()) : null;
    return new ImportanceMerge(imp, r);
  }

  /** Every part's records, back in corpus order; none at all is an error (as a corpus with no input). */
  private static <T> List<T> inputs(List<PartialFile.Part> parts, Class<T> type,
      java.util.function.ToIntFunction<T> line) {
    List<T> all = new ArrayList<>();
    for (PartialFile.Part p : parts) {
      for (JsonNode n : p.records()) {
        try {
          all.add(PartialFile.JSON.treeToValue(n, type));
        } catch (com.fasterxml.jackson.core.JsonProcessingException | RuntimeException e) {
          throw new HeadScopeException(p.path() + " is damaged (an input's results cannot be read).", e);
        }
      }
    }
    if (all.isEmpty()) {
      throw new HeadScopeException("No input of " + parts.get(0).header().corpus().file()
          + " was analysed by any shard.");
    }
    all.sort(Comparator.comparingInt(line));
    return all;
  }

  private static String blankToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }
}
