package io.headscope.app.gui.lens;

import io.headscope.analysis.lens.LensResult;
import io.headscope.analysis.lens.LensRow;
import io.headscope.analysis.lens.LogitLens;
import io.headscope.analysis.saliency.Baseline;
import io.headscope.analysis.saliency.SaliencyMetric;
import io.headscope.analysis.saliency.SaliencyResult;
import io.headscope.analysis.saliency.TokenSaliency;
import io.headscope.app.gui.screen.ScreenModel;
import io.headscope.app.gui.session.Session;
import io.headscope.model.BertModel;
import io.headscope.model.tokenizer.Encoding;
import java.util.List;
import java.util.Locale;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.StringProperty;

/**
 * The Logit lens screen (nostalgebraist 2020; Sundararajan et al. 2017): on the main window's sentence,
 * what each layer's residual stream predicts at the [MASK] (a causal model: the next token) when the model's
 * own output head reads it, and how much each input token moves the followed word (gradient x input, or
 * integrated gradients from the [MASK] baseline), as {@code headscope lens} and {@code saliency} compute them.
 */
public final class LensViewModel extends ScreenModel<LensViewModel.Result> {
  /** The lens of the input and the saliency of its tokens. */
  public record Result(LensResult lens, SaliencyResult saliency, List<String> tokens, String target, String contrast) {}

  private final io.headscope.app.gui.screen.FollowedWords followed;
  private final BooleanProperty integrated = new SimpleBooleanProperty(false);

  public LensViewModel(Session session) {
    super(session, "Type the word to follow at the [MASK] (and a contrast), then Run: the main window's sentence "
        + "is read layer by layer.", e -> { });
    this.followed = new io.headscope.app.gui.screen.FollowedWords(session);
  }


  public StringProperty targetProperty() {
    return followed.targetProperty();
  }

  public StringProperty contrastProperty() {
    return followed.contrastProperty();
  }

  /** Integrated gradients (50 steps from the [MASK] baseline) instead of gradient x input. */
  public BooleanProperty integratedProperty() {
    return integrated;
  }

  public void run() {
    if (noInputOrBusy()) {
      return;
    }
    BertModel m = session.model();
    Encoding input = session.trace().encoding();
    String word = followed.targetProperty().get().strip();
    String other = followed.contrastProperty().get().strip();
    if (word.isEmpty()) {
      job.say("Type the word to follow at the [MASK] (a contrast is optional).");
      return;
    }
    boolean ig = integrated.get();
    job.task("Reading " + m.name() + " layer by layer…", p -> {
          long t = m.tokenizer().singleTokenId(word);
          long c = other.isEmpty() ? -1 : m.tokenizer().singleTokenId(other);
          LensResult lens = new LogitLens(m).run(input, t, c, 5);
          p.update("Token saliency…", 0.5);
          TokenSaliency s = new TokenSaliency(m);
          SaliencyMetric metric = SaliencyMetric.of(t, c);
          SaliencyResult sal = ig
              ? s.integratedGradients(input, metric, Baseline.MASK, TokenSaliency.DEFAULT_STEPS,
                  share -> p.update("Integrated gradients…", 0.5 + share / 2))
              : s.gradientTimesInput(input, metric, Baseline.MASK);
          return new Result(lens, sal, input.tokens(), word, other);
        })
        .onSuccess(r -> {
          result.set(r);
          return summary(r);
        })
        .onFailure(e -> "Could not read the layers: " + Session.message(e).replace('\n', ' '))
        .start();
  }

  static String summary(Result r) {
    StringBuilder b = new StringBuilder();
    for (int p : positions(r.lens())) {
      int first = r.lens().firstTopLayer(p);
      b.append(String.format(Locale.ROOT, "At %s (%d): \u201c%s\u201d %s. ", r.tokens().get(p), p, r.target(),
          first < 0 ? "never becomes the top token" : "is the top token from "
              + (first == 0 ? "the embeddings" : "layer " + first) + " on"));
    }
    SaliencyResult s = r.saliency();
    b.append(String.format(Locale.ROOT, "Saliency (%s): the tokens' scores sum to %.3f; the metric moves %.3f from "
        + "the [MASK] baseline to the input%s.", s.method(), s.total(), s.metricInput() - s.metricBaseline(),
        s.steps() > 1 ? String.format(Locale.ROOT, " (completeness error %.2f%%)", 100 * s.completenessError()) : ""));
    return b.toString();
  }

  /** The read positions of a lens result, in order. */
  static int[] positions(LensResult lens) {
    return lens.rows().stream().mapToInt(LensRow::position).distinct().toArray();
  }

  /** The rows of one read position, embeddings first. */
  public List<LensRow> rows(int position) {
    Result r = result.get();
    return r == null ? List.of() : r.lens().rows().stream().filter(x -> x.position() == position).toList();
  }

  /** The first read position (the first [MASK], or a causal model's last token), or -1. */
  public int firstPosition() {
    Result r = result.get();
    int[] p = r == null ? new int[0] : positions(r.lens());
    return p.length == 0 ? -1 : p[0];
  }

  /** A token id as text (the lens's top tokens). */
  public String token(long id) {
    BertModel m = session.model();
    return m == null ? String.valueOf(id) : m.tokenizer().vocabToken(id).strip();
  }
}
