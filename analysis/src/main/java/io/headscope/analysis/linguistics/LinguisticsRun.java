package io.headscope.analysis.linguistics;

import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import java.nio.file.Path;
import java.util.function.BooleanSupplier;

/**
 * One treebank through both analyses, as the app's Linguistics screen shows it: the dependency heads
 * ({@link SyntaxAnalysis}, every sentence) and, when the file has {@code Entity=} mentions, the
 * coreference heads ({@link CorefHeads}, windows of {@link #COREF_WINDOW} wordpieces as Clark, or the
 * model's maximum when it is shorter). The same calls as {@code headscope syntax} and {@code coref}.
 */
public final class LinguisticsRun {
  public static final int COREF_WINDOW = 128;

  /** Progress of one phase ({@code syntax}, then {@code coref}): inputs done out of all. */
  @FunctionalInterface
  public interface Progress {
    void update(String phase, int done, int total);
  }

  /**
   * @param coref the coreference result, or null when the file has no mentions
   */
  public record Result(Path file, Treebank treebank, SyntaxAnalysis.Result syntax, CorefHeads.Result coref,
      boolean universal) {}

  private LinguisticsRun() {}

  /**
   * Reads the file and runs both analyses.
   *
   * @throws HeadScopeException with one line for a person when the file cannot be read or has no usable
   *     sentence
   */
  public static Result run(BertModel model, Path file, boolean universal, Progress progress,
      BooleanSupplier cancelled) {
    Treebank tb = ConlluReader.read(file);
    SyntaxAnalysis.Result syntax = SyntaxAnalysis.run(model, tb, 0, universal,
        (done, total) -> progress.update("syntax", done, total), cancelled);
    CorefHeads.Result coref = null;
    if (tb.sentences().stream().anyMatch(s -> !s.mentions().isEmpty())) {
      int window = Math.min(COREF_WINDOW, model.tokenizer().maxLength());
      coref = CorefHeads.run(model, tb, window, (done, total) -> progress.update("coref", done, total), cancelled);
    }
    return new Result(file, tb, syntax, coref, universal);
  }
}
