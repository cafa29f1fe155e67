package io.headscope.app.gui.circuits;

import io.headscope.analysis.circuits.Ablation;
import io.headscope.analysis.circuits.CircuitEdge;
import io.headscope.analysis.circuits.CircuitNode;
import io.headscope.analysis.circuits.EdgeScores;
import io.headscope.analysis.circuits.Faithfulness;
import io.headscope.app.gui.chart.SignedHeadGrid;
import io.headscope.app.gui.export.Exports;
import io.headscope.app.gui.screen.ExportItem;
import io.headscope.app.render.figure.CircuitLayout;
import io.headscope.app.gui.screen.ScreenContext;
import io.headscope.app.gui.screen.ScreenDescriptor;
import io.headscope.app.gui.screen.ScreenView;
import io.headscope.model.core.Head;
import io.headscope.model.engine.CompositionNorms.Mode;
import java.util.List;
import java.util.Locale;
import javafx.fxml.FXML;
import javafx.geometry.Point2D;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.chart.LineChart;
import javafx.scene.chart.XYChart;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.Spinner;
import javafx.scene.control.SpinnerValueFactory;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.layout.Pane;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

/**
 * The Circuits screen (issue 43): the circuit graph by layer with the top edges drawn by score, a click on an
 * edge for its exact patch beside its estimate, the faithfulness curve, and composition into a head as a
 * layers x heads matrix. The drawing is this class's; what is drawn is the view model's.
 */
public final class CircuitsView extends ScreenView<CircuitsViewModel> {
  /** Its place in the navigation and its Analysis menu entry. */
  public static final ScreenDescriptor DESCRIPTOR = new ScreenDescriptor("circuits", "Causes", "Circuits",
      "Circuits: which head talks to which (edge attribution, composition, detectors)…",
      "Circuits: every edge between heads scored, checked by exact patching; composition from the weights",
      c -> new CircuitsView(new CircuitsViewModel(c.session()), c));

  /** The colours of the inputs an edge enters: q, k, v, and MLP or logits. */
  static final Color Q = Color.web("#e07b00");
  static final Color K = Color.web("#2e9e44");
  static final Color V = Color.web("#7b3fb5");
  static final Color OTHER = Color.gray(0.45);

  @FXML private TextField cleanField;
  @FXML private TextField corruptedField;
  @FXML private TextField targetField;
  @FXML private TextField contrastField;
  @FXML private ChoiceBox<CircuitsViewModel.Method> methodChoice;
  @FXML private ChoiceBox<Ablation> ablationChoice;
  @FXML private TextArea corruptedSetArea;
  @FXML private Label comparisonLabel;
  @FXML private Spinner<Integer> topSpinner;
  @FXML private TextField thresholdField;
  @FXML private Button weightsButton;
  @FXML private Label hover;
  @FXML private Pane graphPane;
  @FXML private Canvas graph;
  @FXML private Label checkLabel;
  @FXML private LineChart<Number, Number> curve;
  @FXML private ChoiceBox<Mode> modeChoice;
  @FXML private Label compositionLabel;
  @FXML private SignedHeadGrid composition;
  private int pointed = -1;

  public CircuitsView(CircuitsViewModel vm, ScreenContext context) {
    super(vm, context);
    blankOnNewModel(hover);
    cleanField.textProperty().bindBidirectional(vm.cleanProperty());
    cleanField.promptTextProperty().bind(context.session().traceProperty().map(t -> vm.cleanText()));
    corruptedField.textProperty().bindBidirectional(vm.corruptedProperty());
    targetField.textProperty().bindBidirectional(vm.targetProperty());
    contrastField.textProperty().bindBidirectional(vm.contrastProperty());
    methodChoice.getItems().setAll(CircuitsViewModel.Method.values());
    methodChoice.valueProperty().bindBidirectional(vm.methodProperty());
    ablationChoice.getItems().setAll(Ablation.values());
    ablationChoice.setConverter(new javafx.util.StringConverter<>() {
      @Override
      public String toString(Ablation a) {
        return a == null ? "" : a == Ablation.MEAN ? "mean over the set" : "corrupted run";
      }

      @Override
      public Ablation fromString(String s) {
        return null;
      }
    });
    ablationChoice.valueProperty().bindBidirectional(vm.ablationProperty());
    corruptedSetArea.textProperty().bindBidirectional(vm.corruptedSetProperty());
    SpinnerValueFactory.IntegerSpinnerValueFactory tops =
        new SpinnerValueFactory.IntegerSpinnerValueFactory(1, 100_000, vm.topProperty().get(), 10);
    topSpinner.setValueFactory(tops);
    tops.valueProperty().addListener((o, a, b) -> {
      if (b != null) {
        vm.topProperty().set(b);
      }
    });
    vm.topProperty().addListener((o, a, b) -> tops.setValue(b.intValue()));
    thresholdField.textProperty().addListener((o, a, b) -> {
      try {
        vm.thresholdProperty().set(b.isBlank() ? 0 : Math.abs(Double.parseDouble(b.strip())));
        thresholdField.pseudoClassStateChanged(javafx.css.PseudoClass.getPseudoClass("error"), false);
      } catch (NumberFormatException e) {
        thresholdField.pseudoClassStateChanged(javafx.css.PseudoClass.getPseudoClass("error"), true);
      }
    });
    modeChoice.getItems().setAll(Mode.values());
    modeChoice.valueProperty().bindBidirectional(vm.modeProperty());
    bindRun(vm::run);
    weightsButton.disableProperty().bind(runBar.runButton().disableProperty());
    composition.setFullScale(0);
    composition.onHead(h -> { }, h -> hover.setText(describeComposition(h)));

    graph.widthProperty().bind(graphPane.widthProperty());
    graph.heightProperty().bind(graphPane.heightProperty());
    graph.widthProperty().addListener((o, a, b) -> draw());
    graph.heightProperty().addListener((o, a, b) -> draw());
    vm.shownProperty().addListener((o, a, b) -> draw());
    vm.selectedProperty().addListener((o, a, b) -> draw());
    vm.receiverProperty().addListener((o, a, b) -> {
      draw();
      showComposition();
    });
    vm.modeProperty().addListener((o, a, b) -> showComposition());
    vm.weightsProperty().addListener((o, a, b) -> {
      draw();
      showComposition();
    });
    vm.resultProperty().addListener((o, a, b) -> {
      showCurve(b);
      String c = CircuitsViewModel.comparison(b);
      comparisonLabel.setText(c != null ? c : b == null ? "Type a corrupted set to see what mean ablation changes."
          : "One ablation run (" + b.ablationName() + "); type a corrupted set to compare with "
              + (b.analysis().ablation() == Ablation.MEAN ? "corrupted" : "mean") + " ablation.");
    });
    vm.checkProperty().addListener((o, a, b) -> checkLabel.setText(b == null
        ? (vm.selectedProperty().get() == null ? "Click an edge: its exact patch (one run) beside its estimate."
            : "Patching " + vm.selectedProperty().get().label() + " exactly…")
        : CircuitsViewModel.checkText(vm.resultProperty().get(), b, vm.otherCheckProperty().get())));
    // a head node under the pointer wins over the edges that start or end in it (as the click does)
    graph.setOnMouseMoved(e -> {
      CircuitNode n = graphLayout() == null ? null : graphLayout().nodeAt(e.getX(), e.getY(), 5);
      int i = n != null ? -1 : edgeAt(e.getX(), e.getY());
      if (i != pointed) {
        pointed = i;
        draw();
      }
      hover.setText(i >= 0 ? vm.describe(i) : n != null ? "Head " + n.label() + ": click to see the composition into it"
          : "Point at an edge to read it");
    });
    graph.setOnMouseClicked(e -> {
      CircuitLayout lay = graphLayout();
      CircuitNode n = lay == null ? null : lay.nodeAt(e.getX(), e.getY(), 5);
      if (n != null) {
        vm.receiverProperty().set(new Head(n.layer(), n.head()));
        return;
      }
      int i = edgeAt(e.getX(), e.getY());
      if (i >= 0) {
        vm.selectEdge(i);
      }
    });
    showComposition();
    draw();
  }

  @FXML
  private void computeWeights() {
    vm.computeWeights();
  }

  @Override
  public List<ExportItem> exports() {
    return List.of(
        whenDone("export-circuit-edges", "Circuit edge scores CSV (as headscope edges)…", () -> context.dialogs()
            .export("edge scores CSV", "csv", "edges.csv", () -> part(CircuitsViewModel.Result::scores),
                Exports::edgeScoresCsv)),
        whenDone("export-circuit-faithfulness", "Circuit faithfulness CSV (as headscope circuit)…", () -> context
            .dialogs().export("faithfulness CSV", "csv", "faithfulness.csv",
                () -> part(CircuitsViewModel.Result::faithfulness), Exports::faithfulnessCsv)),
        whenDone("export-circuit-figure", "Circuit graph as figure (PNG 300 dpi or SVG)…",
            () -> context.dialogs().exportFigure("circuit", vm::figure)));
  }

  /** A part of the result for an export; null (the writer says what to run) without one. */
  private <T> T part(java.util.function.Function<CircuitsViewModel.Result, T> f) {
    var r = vm.resultProperty().get();
    return r == null ? null : f.apply(r);
  }

  private CircuitLayout graphLayout() {
    var m = context.session().model();
    if (m == null || graph.getWidth() <= 0 || graph.getHeight() <= 0) {
      return null;
    }
    return new CircuitLayout(m.config().numHiddenLayers(), m.config().numAttentionHeads(),
        m.config().parts().keyValueHeads(), graph.getWidth(), graph.getHeight());
  }

  private int edgeAt(double x, double y) {
    CircuitLayout lay = graphLayout();
    var r = vm.resultProperty().get();
    return lay == null || r == null ? -1 : lay.edgeAt(r.scores().edges(), vm.shownProperty().get(), x, y, 5);
  }

  /** For tests: the midpoint of the drawn edge {@code index}, in screen coordinates. */
  public Point2D edgeOnScreen(int index) {
    double[] s = graphLayout().segment(vm.resultProperty().get().scores().edges().get(index));
    return graph.localToScreen((s[0] + s[2]) / 2, (s[1] + s[3]) / 2);
  }

  static Color colour(CircuitEdge e) {
    return switch (e.input()) {
      case Q -> Q;
      case K -> K;
      case V -> V;
      default -> OTHER;
    };
  }

  private void draw() {
    GraphicsContext g = graph.getGraphicsContext2D();
    double w = graph.getWidth();
    double h = graph.getHeight();
    g.setFill(Color.WHITE);
    g.fillRect(0, 0, w, h);
    CircuitLayout lay = graphLayout();
    if (lay == null) {
      return;
    }
    var r = vm.resultProperty().get();
    double max = vm.maxScore();
    if (r != null && max > 0) {
      EdgeScores s = r.scores();
      List<Integer> shown = vm.shownProperty().get();
      // the smallest first, so the largest are drawn on top
      for (int k = shown.size() - 1; k >= 0; k--) {
        int i = shown.get(k);
        CircuitEdge e = s.edges().get(i);
        double[] seg = lay.segment(e);
        double a = Math.abs(s.score(i)) / max;
        boolean marked = e.equals(vm.selectedProperty().get()) || i == pointed;
        g.setStroke(marked ? Color.BLACK : colour(e).deriveColor(0, 1, 1, 0.35 + 0.6 * a));
        g.setLineWidth(0.8 + 5 * a + (marked ? 1.5 : 0));
        // a positive score (the edge works against the behaviour) dashed
        g.setLineDashes(s.score(i) > 0 ? new double[] {6, 4} : null);
        g.strokeLine(seg[0], seg[1], seg[2], seg[3]);
      }
      g.setLineDashes(null);
    }
    g.setFont(Font.font(10));
    g.setTextAlign(TextAlignment.CENTER);
    Head receiver = vm.receiverProperty().get();
    // layer numbers over the columns: "L" only where there is room for it
    double spacing = lay.columnX(1) - lay.columnX(0);
    for (int l = 0; l < lay.layers(); l++) {
      double[] top = lay.at(CircuitNode.head(l, 0));
      g.setFill(Color.gray(0.25));
      g.fillText((spacing >= 26 || l == 0 ? "L" : "") + (l + 1), top[0], 14);
      for (int hd = 0; hd < lay.heads(); hd++) {
        double[] p = lay.at(CircuitNode.head(l, hd));
        boolean isReceiver = receiver != null && receiver.layer() == l && receiver.head() == hd;
        g.setFill(isReceiver ? Color.BLACK : Color.web("#d0d6e0"));
        g.fillOval(p[0] - 4, p[1] - 4, 8, 8);
      }
      for (int kv = 0; lay.grouped() && kv < lay.groups(); kv++) {
        double[] p = lay.at(CircuitNode.group(l, kv)); // where k and v edges of grouped-query attention enter
        g.setFill(Color.web("#8a94a3"));
        g.fillRect(p[0] - 3, p[1] - 3, 6, 6);
      }
      double[] mlp = lay.at(CircuitNode.mlp(l));
      g.setFill(Color.web("#b8c0cc"));
      g.fillRect(mlp[0] - 4, mlp[1] - 4, 8, 8);
    }
    g.setFill(Color.gray(0.25));
    // grouped queries: the small squares left of a column are the key/value groups k and v edges enter
    g.fillText("heads 1 to " + lay.heads() + " top to bottom" + (lay.grouped() ? ", k/v groups left" : "") + "; MLP",
        w / 2, h - 6);
    double[] emb = lay.at(CircuitNode.EMBEDDINGS);
    double[] out = lay.at(CircuitNode.LOGITS);
    g.setFill(Color.web("#5b6b80"));
    g.fillRect(emb[0] - 5, emb[1] - 5, 10, 10);
    g.fillRect(out[0] - 5, out[1] - 5, 10, 10);
    g.fillText("embed", emb[0], emb[1] - 9);
    g.fillText("logits", out[0], out[1] + 16);
    if (r == null) {
      g.setFill(Color.gray(0.4));
      g.fillText("Run to score the edges", w / 2, h / 2);
    }
  }

  /** The chosen ablation's curve, and the other's beside it when both ran (each named by its ablation). */
  private void showCurve(CircuitsViewModel.Result r) {
    curve.getData().clear();
    for (CircuitsViewModel.Result x = r; x != null; x = x == r ? r.other() : null) {
      XYChart.Series<Number, Number> series = new XYChart.Series<>();
      series.setName(x.ablationName());
      for (Faithfulness.Point p : x.faithfulness().points()) {
        series.getData().add(new XYChart.Data<>(Math.log10(p.edges()), p.kept()));
      }
      curve.getData().add(series);
    }
  }

  private void showComposition() {
    double[][] m = vm.compositionMatrix();
    compositionLabel.setText(vm.compositionCaption());
    composition.show(m == null ? new double[0][0] : m, vm.receiverProperty().get(), 230);
  }

  private String describeComposition(Head h) {
    double[][] m = vm.compositionMatrix();
    Head r = vm.receiverProperty().get();
    if (m == null || h == null || r == null || h.layer() >= m.length || Double.isNaN(m[h.layer()][h.head()])) {
      return " ";
    }
    return String.format(Locale.ROOT, "%s-composition of head %s's output into head %s: %.4f",
        vm.modeProperty().get(), h, r, m[h.layer()][h.head()]);
  }
}
