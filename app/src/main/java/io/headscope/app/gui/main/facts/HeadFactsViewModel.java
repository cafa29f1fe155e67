package io.headscope.app.gui.main.facts;

import io.headscope.analysis.heads.HeadScore;
import io.headscope.analysis.heads.LayerTokenTypes;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.model.core.Head;
import java.util.List;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyListProperty;
import javafx.beans.property.ReadOnlyListWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ListChangeListener;

/**
 * The selected head's facts: its Kovaleva score and statistics, and the input's token-type attention
 * per layer. Everything comes from the analysis module's records (the main view model classifies
 * every head once per input); this only picks the selected head and groups per layer.
 */
public final class HeadFactsViewModel {
  private final MainViewModel main;
  private final ReadOnlyObjectWrapper<HeadScore> score = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyListWrapper<LayerTokenTypes> layers =
      new ReadOnlyListWrapper<>(FXCollections.observableArrayList());
  private final ReadOnlyBooleanWrapper selectedOff = new ReadOnlyBooleanWrapper();

  public HeadFactsViewModel(MainViewModel main) {
    this.main = main;
    main.selectedProperty().addListener((o, a, b) -> update());
    main.summariesProperty().addListener((o, a, b) -> update());
    main.maskProperty().addListener((o, a, b) -> update());
    main.modelProperty().addListener((o, a, b) -> names = io.headscope.app.render.TokenTypeNames.of(b));
    names = io.headscope.app.render.TokenTypeNames.of(main.modelProperty().get());
    main.scoresProperty().addListener((ListChangeListener<HeadScore>) c -> {
      setLayers();
      update();
    });
    main.summariesProperty().addListener((o, a, b) -> setLayers());
    update();
  }

  private io.headscope.app.render.TokenTypeNames names;

  /** The token types as the loaded model names them ({@code <s>} and {@code </s>} on RoBERTa). */
  public io.headscope.app.render.TokenTypeNames names() {
    return names;
  }

  /** Whether the loaded model gets no categories (a causal model: see HeadClassifier.appliesTo). */
  public boolean categoriesWithheld() {
    if (main.session().twoStacks() != null) {
      return true; // an encoder-decoder: its kinds are not one stack's bidirectional maps either
    }
    io.headscope.model.BertModel m = main.modelProperty().get();
    return m != null && !io.headscope.analysis.heads.HeadClassifier.appliesTo(m);
  }

  /** Whether the loaded model is an encoder-decoder (T5, BART). */
  public boolean encoderDecoder() {
    return main.session().twoStacks() != null;
  }

  public ReadOnlyObjectProperty<HeadScore> scoreProperty() {
    return score.getReadOnlyProperty();
  }

  /** Token-type shares per layer (weights and norm-weighted), mean over the layer's heads. */
  public ReadOnlyListProperty<LayerTokenTypes> layersProperty() {
    return layers.getReadOnlyProperty();
  }

  /** The selected head's layer (0-based), -1 when none; the layer chart highlights it. */
  public int selectedLayer() {
    Head h = main.selectedProperty().get();
    return h == null ? -1 : h.layer();
  }

  /**
   * What decided the category, for the line that shows it: the learned model's confidence is its
   * probability, the rule's the margin past its thresholds.
   */
  public String decidedBy() {
    return main.methodProperty().get() == io.headscope.analysis.heads.HeadClassifier.Method.RULE
        ? "rule" : "learned model";
  }

  /**
   * The learned model's probability of each category for the selected head, in {@link
   * io.headscope.analysis.heads.HeadPattern} order; empty under the rule (which has no probabilities) or with no
   * head. The grid's colour is the largest of them, or uncertain when that is under the threshold, so the
   * panel's bars and the colour never disagree.
   */
  public java.util.Optional<double[]> probabilities() {
    HeadScore s = score.get();
    if (s == null || main.methodProperty().get() == io.headscope.analysis.heads.HeadClassifier.Method.RULE) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(io.headscope.analysis.heads.LearnedRule.shipped().probabilities(s.features()));
  }

  /**
   * The written definition's row shares for the selected head (METHODS.md): B, the share of rows with at least
   * half their weight on the band (offsets -1..+1), and S, on the stripes (the stripe set: the top column and
   * each next one with half its weight, up to four), both off the other.
   */
  public record Shares(double band, double stripes) {}

  /** {@link Shares} of the selected head, or null with no head. */
  public Shares shares() {
    HeadScore s = score.get();
    if (s == null) {
      return null;
    }
    double[] f = s.features().values();
    return new Shares(f[io.headscope.analysis.heads.MapFeatures.NAMES.indexOf("rows_on_band")],
        f[io.headscope.analysis.heads.MapFeatures.NAMES.indexOf("rows_on_stripe_set")]);
  }

  /** Whether the selected head is switched off (its scores still describe the intact map). */
  public ReadOnlyBooleanProperty selectedOffProperty() {
    return selectedOff.getReadOnlyProperty();
  }

  /** The words for {@link HeadScore#dominantOffset()}. */
  public static String offsetName(int offset) {
    return switch (offset) {
      case -1 -> "previous token";
      case 0 -> "itself";
      case 1 -> "next token";
      default -> "offset " + offset;
    };
  }

  private void setLayers() {
    if (!main.scoresProperty().isEmpty()) {
      layers.setAll(LayerTokenTypes.of(main.scoresProperty()));
    } else if (categoriesWithheld()) {
      layers.setAll(firstTokenLayers());
    } else {
      layers.clear();
    }
  }

  /**
   * A causal model's token types per layer (issue 41: the first token's share, the attention sink, as a token
   * type in every decoder view): the mean over the layer's heads of {@link FirstToken}'s shares, the first
   * token in the {@link io.headscope.analysis.heads.TokenType#CLS} place (its colour and position in the
   * chart), the end token (an encoder-decoder's {@code </s>}) in the SEP place or nothing there, and no
   * norm-weighted side (the run's summaries keep no value norms): {@code norm} is null. On an encoder-decoder's
   * cross maps the keys are the source's tokens: the source's first token and its {@code </s>}.
   */
  public List<LayerTokenTypes> firstTokenLayers() {
    io.headscope.model.HeadSummaries s = main.summariesProperty().get();
    if (s == null || main.traceProperty().get() == null) {
      return List.of();
    }
    List<LayerTokenTypes> out = new java.util.ArrayList<>();
    for (int l = 0; l < s.layers(); l++) {
      double[] mean = new double[4];
      for (int h = 0; h < s.heads(); h++) {
        FirstToken f = firstToken(new Head(l, h));
        if (f == null) {
          return List.of();
        }
        for (int i = 0; i < 4; i++) {
          mean[i] += f.shares()[i] / s.heads();
        }
      }
      out.add(new LayerTokenTypes(l, new io.headscope.analysis.heads.TokenTypeShares(mean[0], mean[1], mean[2],
          mean[3]), null));
    }
    return out;
  }

  /** How the token types are named where categories are withheld: the first token is the sink, no [SEP]. */
  public static final io.headscope.app.render.TokenTypeNames FIRST_TOKEN_NAMES =
      new io.headscope.app.render.TokenTypeNames("first token (sink)", null, false);

  /** The first token's name on cross maps: the source's first token (a word on T5, {@code <s>} on BART). */
  public static final String SOURCE_FIRST = "source's first token";

  /**
   * The names the token-type charts use now: the model's specials, or the first token (and an encoder-decoder's
   * end token, {@code </s>}, where the keys have one) where categories are withheld.
   */
  public io.headscope.app.render.TokenTypeNames chartNames() {
    if (!categoriesWithheld()) {
      return names;
    }
    String end = endName(keyTokens());
    return new io.headscope.app.render.TokenTypeNames(crossShown() ? SOURCE_FIRST : FIRST_TOKEN_NAMES.cls(), end,
        false);
  }

  /** Whether the maps shown are an encoder-decoder's cross-attention (target queries over source keys). */
  public boolean crossShown() {
    io.headscope.app.gui.session.TwoStacks t = main.session().twoStacks();
    return t != null && t.kind() == io.headscope.model.core.AttentionKind.CROSS;
  }

  /**
   * The tokens the shown maps attend to: the trace's own, except on cross maps, whose keys are the source's (the
   * trace's tokens are then the target's, its queries).
   */
  private List<String> keyTokens() {
    io.headscope.app.gui.session.TwoStacks t = main.session().twoStacks();
    if (t != null && t.kind() == io.headscope.model.core.AttentionKind.CROSS && t.intact() != null) {
      return t.intact().source().tokens();
    }
    io.headscope.model.AttentionTrace trace = main.traceProperty().get();
    return trace == null ? List.of() : trace.tokens();
  }

  /**
   * The end token's name where an encoder-decoder's keys have one after the first ({@code </s>}, the type of
   * BERT's {@code [SEP]}); null elsewhere (a decoder's inputs end with no such token, and a single-stack model's
   * specials are named by its categories' panel).
   */
  private String endName(List<String> keys) {
    if (main.session().twoStacks() == null) {
      return null;
    }
    for (int j = 1; j < keys.size(); j++) {
      if (io.headscope.analysis.heads.TokenType.of(keys.get(j)) == io.headscope.analysis.heads.TokenType.SEP) {
        return keys.get(j);
      }
    }
    return null;
  }

  private void update() {
    Head h = main.selectedProperty().get();
    selectedOff.set(h != null && main.maskProperty().get().isOff(h));
    score.set(h == null ? null : main.score(h));
    first.set(h == null ? null : firstToken(h));
  }

  /**
   * A head's attention by key type where no category is given (a causal model, an encoder-decoder): the first
   * token's share (the attention sink, as [CLS] is BERT's first token), the end token's ({@code </s>} on an
   * encoder-decoder's keys, 0 elsewhere), punctuation's and the rest's, from the run's summaries (the mean over
   * query rows of the weight each key receives). On cross maps the keys are the source's tokens.
   *
   * @param shares first token, end token, punctuation, other, in that order (summing to 1)
   * @param endName the end token as the keys spell it ({@code </s>}), null where the keys have none after the
   *     first (the share is then 0 and not shown)
   * @param cross whether these are a cross head's numbers (target queries over source keys)
   */
  public record FirstToken(Head head, double[] shares, double entropy, double largest, String endName,
      boolean cross) {}

  private final ReadOnlyObjectWrapper<FirstToken> first = new ReadOnlyObjectWrapper<>();

  /** The selected head's {@link FirstToken} facts (null: no head, or no input yet). */
  public ReadOnlyObjectProperty<FirstToken> firstTokenProperty() {
    return first.getReadOnlyProperty();
  }

  private FirstToken firstToken(Head h) {
    io.headscope.model.HeadSummaries s = main.summariesProperty().get();
    io.headscope.model.AttentionTrace t = main.traceProperty().get();
    if (s == null || t == null || h.layer() >= s.layers() || h.head() >= s.heads()) {
      return null;
    }
    float[] received = s.received()[h.layer()][h.head()];
    List<String> keys = keyTokens();
    if (keys.size() != received.length) {
      return null; // summaries of another input than the tokens at hand (a run still on its way)
    }
    String end = endName(keys);
    double[] shares = io.headscope.analysis.heads.FirstTokenTypes.shares(received, keys, end != null);
    return new FirstToken(h, shares, s.entropy()[h.layer()][h.head()], s.maxWeight()[h.layer()][h.head()], end,
        crossShown());
  }
}
