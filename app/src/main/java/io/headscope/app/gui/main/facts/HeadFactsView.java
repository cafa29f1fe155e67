package io.headscope.app.gui.main.facts;

import io.headscope.analysis.heads.HeadPattern;
import io.headscope.analysis.heads.HeadScore;
import io.headscope.analysis.heads.HeadStats;
import io.headscope.analysis.heads.LayerTokenTypes;
import io.headscope.analysis.heads.TokenType;
import io.headscope.app.gui.chart.Bars;
import io.headscope.app.gui.chart.TokenTypeChart;
import io.headscope.app.gui.fxml.ViewLoader;
import io.headscope.app.gui.main.grid.CategoryLegend;
import io.headscope.app.gui.style.FxColors;
import io.headscope.app.render.UiColor;
import java.util.Locale;
import javafx.collections.ListChangeListener;
import javafx.fxml.FXML;
import javafx.scene.control.Label;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.VBox;
import javafx.scene.paint.Color;
import javafx.scene.shape.Rectangle;

/**
 * The selected head's panels: category and the learned model's probabilities (the rule's pattern scores
 * under the rule), the written definition's row shares, entropy and offset attention, the token
 * types it attends to (weights beside norm-weighted); and, placed by the panel, the input's token types
 * per layer.
 */
public final class HeadFactsView extends VBox {
  private final HeadFactsViewModel vm;
  @FXML private Label category;
  @FXML private Rectangle swatch;
  @FXML private Label looks;
  @FXML private GridPane numbers;
  @FXML private GridPane types;
  @FXML private Label typesHeading;
  @FXML private TokenTypeChart chart;

  public HeadFactsView(HeadFactsViewModel vm) {
    this.vm = vm;
    ViewLoader.load(this);
    vm.scoreProperty().addListener((o, a, b) -> refresh());
    vm.selectedOffProperty().addListener((o, a, b) -> refresh());
    vm.firstTokenProperty().addListener((o, a, b) -> refresh());
    vm.layersProperty().addListener((ListChangeListener<LayerTokenTypes>) c -> refresh());
    refresh();
  }

  /** The input's token types per layer, the selected head's layer highlighted (shown in its own tab). */
  /** The panel's state (the figure export reads the per-layer token types from it). */
  public HeadFactsViewModel viewModel() {
    return vm;
  }

  public TokenTypeChart layerChart() {
    return chart;
  }

  private void refresh() {
    chart.show(vm.layersProperty(), vm.selectedLayer(), vm.chartNames());
    numbers.getChildren().clear();
    types.getChildren().clear();
    fill();
    // the heading names what the rows hold, and goes with them (issue 40: shown empty on a decoder)
    typesHeading.setText(vm.scoreProperty().get() != null ? TYPES_ENCODER : vm.crossShown() ? TYPES_CROSS
        : TYPES_DECODER);
    typesHeading.setVisible(!types.getChildren().isEmpty());
    typesHeading.setManaged(typesHeading.isVisible());
  }

  /** The token-type heading over an encoder's rows (weights beside norm-weighted shares). */
  public static final String TYPES_ENCODER = "Token types this head attends to: weight | norm-weighted";
  /** The heading over a causal model's rows: the first token's share is its attention sink. */
  public static final String TYPES_DECODER = "Token types this head attends to (weight; the first token is the "
      + "attention sink)";

  /** The heading over a cross head's rows: its keys are the source's tokens, its rows the target's. */
  public static final String TYPES_CROSS = "Source tokens this cross head attends to (weight, mean over the target's "
      + "tokens)";

  private void fill() {
    HeadScore s = vm.scoreProperty().get();
    if (s == null) {
      swatch.setFill(Color.TRANSPARENT);
      category.setText(vm.categoriesWithheld() && vm.encoderDecoder()
          ? "No category: the categories are defined on one stack's bidirectional maps; an encoder-decoder's "
              + "encoder, decoder (causal) and cross (target × source) maps get none."
          : vm.categoriesWithheld()
          ? "No category: this model attends causally (each token sees only those before it), and the "
              + "categories are defined on bidirectional maps."
          : "No category yet: type a sentence and pick a head.");
      looks.setText("");
      HeadFactsViewModel.FirstToken f = vm.firstTokenProperty().get();
      if (f != null && vm.categoriesWithheld()) {
        // a decoder's token types: the first token is its attention sink, as [CLS] is BERT's
        looks.setText(String.format(Locale.ROOT, "Entropy %.2f nats  ·  largest weight %.2f", f.entropy(), f.largest()));
        // rows: first token, end token (an encoder-decoder's </s>, where its keys have one), punctuation, other
        String[] names = {f.cross() ? HeadFactsViewModel.SOURCE_FIRST : "first token (sink)", f.endName(),
            "punctuation", "other"};
        Color[] colors = {FxColors.tokenType(TokenType.CLS), FxColors.tokenType(TokenType.SEP),
            FxColors.tokenType(TokenType.PUNCT), FxColors.tokenType(TokenType.OTHER)};
        int row = 0;
        for (int i = 0; i < 4; i++) {
          if (names[i] == null) {
            continue;
          }
          Label name = Bars.name(names[i]);
          if (i == 0) {
            name.setId("facts-sink");
            Tooltip.install(name, new Tooltip(f.cross()
                ? "The mean over the target's query rows of the weight on the source's first token."
                : "The mean over the query rows of the weight on the first token: decoders park attention there "
                    + "(the attention sink), as BERT's heads park it on [CLS] and [SEP]."));
          } else if (i == 1) {
            name.setId("facts-end");
            Tooltip.install(name, new Tooltip("The mean over the query rows of the weight on " + names[i]
                + ", the end of the " + (f.cross() ? "source" : "input") + " (as BERT's heads park attention on [SEP])."));
          }
          types.add(name, 0, row);
          types.add(Bars.bar(f.shares()[i], colors[i]), 1, row);
          row++;
        }
      }
      return;
    }
    swatch.setFill(s.uncertain() ? Color.TRANSPARENT : FxColors.category(s.category()));
    String intact = vm.selectedOffProperty().get() ? "  (of the intact map)" : "";
    category.setText(s.uncertain()
        ? String.format(Locale.ROOT, "uncertain  ·  likeliest %s %.2f, runner-up %s %.2f (%s; under %.2f is uncertain)%s",
            s.category().label(), s.confidence(), s.runnerUp().label(), s.runnerUpConfidence(), vm.decidedBy(),
            io.headscope.analysis.heads.LearnedRule.UNCERTAIN_BELOW, intact)
        : String.format(Locale.ROOT, "%s  ·  confidence %.2f (%s)%s", s.category().label(),
            s.confidence(), vm.decidedBy(), intact));
    Tooltip.install(category, new Tooltip(CategoryLegend.describe(s.category())));
    HeadStats st = s.stats();
    // in a pair the two most-attended columns are often both [SEP]: name the token once
    HeadFactsViewModel.Shares shares = vm.shares();
    looks.setText("Looks most at " + String.join(", ", s.topColumns().stream().distinct().toList()) + "  ·  strongest offset: "
        + HeadFactsViewModel.offsetName(s.dominantOffset()) + String.format(Locale.ROOT,
        "\nRows with half their weight on the band: %.0f%%, on the stripes: %.0f%% (B and S of the written definition)",
        100 * shares.band(), 100 * shares.stripes()));

    java.util.Optional<double[]> p = vm.probabilities();
    if (p.isPresent()) {
      // the learned model decides: show what it said, so the bars and the grid's colour cannot disagree
      Label heading = Bars.heading("Probability (learned model)");
      heading.setId("facts-probability-heading");
      Tooltip.install(heading, new Tooltip("The learned model's probability of each category. The grid's colour is the "
          + "largest, or a grey dashed frame (uncertain) when the largest is under "
          + io.headscope.analysis.heads.LearnedRule.UNCERTAIN_BELOW + "."));
      numbers.add(heading, 0, 0, 2, 1);
      for (HeadPattern c : HeadPattern.values()) {
        row(numbers, 0, c.ordinal() + 1, c.label(), p.get()[c.ordinal()], FxColors.category(c));
      }
    } else {
      numbers.add(Bars.heading("Pattern scores (rule)"), 0, 0, 2, 1);
      row(numbers, 0, 1, "vertical", s.vertical(), FxColors.category(HeadPattern.VERTICAL));
      row(numbers, 0, 2, "diagonal", s.diagonal(), FxColors.category(HeadPattern.DIAGONAL));
      row(numbers, 0, 3, "block", s.block(), FxColors.category(HeadPattern.BLOCK));
      row(numbers, 0, 4, "heterogeneous", s.heterogeneous(), FxColors.category(HeadPattern.HETEROGENEOUS));
    }
    numbers.add(Bars.heading("Attention to"), 2, 0, 2, 1);
    Color grey = FxColors.of(UiColor.NEUTRAL_BAR);
    row(numbers, 2, 1, "previous", st.previous(), grey);
    row(numbers, 2, 2, "self", st.self(), grey);
    row(numbers, 2, 3, "next", st.next(), grey);
    Label ent = Bars.name(String.format(Locale.ROOT, "%.2f nats", st.entropy()));
    ent.setId("facts-entropy");
    numbers.add(Bars.name("entropy"), 2, 4);
    numbers.add(ent, 3, 4);

    double[] w = st.weightShares();
    double[] n = st.normShares();
    for (TokenType t : TokenType.values()) {
      Label name = Bars.name(vm.names().label(t));
      types.add(name, 0, t.ordinal());
      types.add(Bars.bar(w[t.ordinal()], FxColors.tokenType(t)), 1, t.ordinal());
      types.add(Bars.bar(n[t.ordinal()], FxColors.tokenType(t)), 2, t.ordinal());
    }
  }

  private static void row(GridPane g, int col, int r, String name, double v, Color c) {
    g.add(Bars.name(name), col, r);
    g.add(Bars.bar(v, c), col + 1, r);
  }
}
