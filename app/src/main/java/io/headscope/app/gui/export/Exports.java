package io.headscope.app.gui.export;

import io.headscope.analysis.ablation.AblationCsv;
import io.headscope.analysis.ablation.AblationTable;
import io.headscope.analysis.circuits.EdgeCsv;
import io.headscope.analysis.circuits.EdgeScores;
import io.headscope.analysis.circuits.Faithfulness;
import io.headscope.analysis.export.HeadCsv;
import io.headscope.analysis.export.JsonExport;
import io.headscope.analysis.heads.HeadScore;
import io.headscope.analysis.heads.HeadSummary;
import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.model.AttentionTrace;
import io.headscope.model.core.HeadScopeException;
import io.headscope.analysis.ablation.AblationResult;
import io.headscope.model.store.SafeFiles;
import java.nio.file.Path;
import java.util.List;

/**
 * The GUI's files, each written atomically (temp file + rename): the user already confirmed any
 * overwrite in the save dialog, so existing files are replaced.
 */
public final class Exports {
  private Exports() {}

  public static void attentionJson(AttentionTrace t, Path file) {
    attentionJson(t, false, file);
  }

  /** The attention JSON, over words when the words switch is on (as {@code attention --words}). */
  public static void attentionJson(AttentionTrace t, boolean words, Path file) {
    if (t == null) {
      throw new HeadScopeException("Nothing to export yet: type a sentence first.");
    }
    SafeFiles.writeAtomically(file, true, out -> JsonExport.attention(t, t.layerNorms(), words, out));
  }

  /**
   * The interactive page (the bytes {@code headscope html} writes for the same input and heads). The page is
   * made on the model's worker beforehand ({@link io.headscope.app.render.page.PageData#build}); this only writes it.
   */
  public static void interactivePage(byte[] page, Path file) {
    if (page == null) {
      throw new HeadScopeException("Nothing to export yet: type a sentence first.");
    }
    SafeFiles.writeAtomically(file, true, out -> out.write(page));
  }

  /** The {@code classify} CSV, through the same writer as the CLI command (one row per head). */
  public static void classificationCsv(List<HeadSummary> heads, Path file) {
    HeadCsv.write(file, true, heads);
  }

  /**
   * The current input's classification as {@code classify --text} writes it: each head's score on the
   * one input summarised as the corpus run summarises it (shares of 0 or 1).
   */
  public static List<HeadSummary> oneInput(List<HeadScore> scores, HeadClassifier classifier) {
    if (scores.isEmpty()) {
      throw new HeadScopeException("Nothing to export yet: type a sentence first.");
    }
    return scores.stream().map(s -> HeadSummary.of(s, classifier)).toList();
  }

  /** The {@code ablate} CSV of a sweep, through the same table and writer as the CLI command. */
  public static void ablationCsv(AblationResult r, Path file) {
    if (r == null) {
      throw new HeadScopeException("Run the ablation sweep first.");
    }
    AblationTable table = AblationTable.of(r);
    SafeFiles.writeAtomically(file, true, out -> AblationCsv.ablation(table, out));
  }

  /** The Circuits screen's edge scores as {@code headscope edges} writes them: {@code sender,receiver,input,score}. */
  public static void edgeScoresCsv(EdgeScores s, Path file) {
    if (s == null) {
      throw new HeadScopeException("Run the edge scores first: the CSV holds every edge's score.");
    }
    SafeFiles.writeAtomically(file, true, out -> EdgeCsv.write(s, 0, out));
  }

  /** The Circuits screen's faithfulness curve as {@code headscope circuit} writes it: {@code edges,metric,kept}. */
  public static void faithfulnessCsv(Faithfulness f, Path file) {
    if (f == null) {
      throw new HeadScopeException("Run the edge scores first: the CSV holds the faithfulness curve.");
    }
    SafeFiles.writeAtomically(file, true, out -> EdgeCsv.writeFaithfulness(f, out));
  }
}
