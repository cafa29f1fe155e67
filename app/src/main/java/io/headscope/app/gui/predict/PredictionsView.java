package io.headscope.app.gui.predict;

import io.headscope.app.gui.fxml.ViewLoader;
import io.headscope.app.gui.style.States;
import io.headscope.model.MaskPrediction.TokenProbability;
import io.headscope.analysis.ablation.TargetMetric;
import java.util.List;
import javafx.animation.PauseTransition;
import javafx.collections.ListChangeListener;
import javafx.fxml.FXML;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.TextField;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.util.Duration;

/** Per {@code [MASK]}: top tokens before and after switching heads off, and classifier probabilities. */
public final class PredictionsView extends ScrollPane {
  private final PredictionsViewModel vm;
  @FXML private VBox rows;
  @FXML private TextField targetField;
  @FXML private TextField contrastField;
  @FXML private ChoiceBox<TargetMetric.Kind> metricChoice;
  @FXML private Label targetProblem;
  @FXML private Label followHeading;
  @FXML private VBox targetRows;

  public PredictionsView(PredictionsViewModel vm) {
    this.vm = vm;
    ViewLoader.load(this);
    targetField.textProperty().bindBidirectional(vm.targetWordProperty());
    contrastField.textProperty().bindBidirectional(vm.contrastWordProperty());
    PauseTransition pause = new PauseTransition(Duration.millis(350));
    pause.setOnFinished(e -> vm.follow());
    for (TextField f : new TextField[] {targetField, contrastField}) {
      f.textProperty().addListener((o, a, b) -> pause.playFromStart());
      f.setOnAction(e -> {
        pause.stop();
        vm.follow();
      });
    }
    // the choices in the sweep title's own words ("logit her − him"), offered for the words typed; kept in step
    // with the view model by hand, as a bidirectional binding would pass the null of a list being replaced
    metricChoice.getItems().setAll(vm.metricsOffered());
    metricChoice.setValue(vm.metricProperty().get());
    metricChoice.setConverter(metricWords());
    vm.metricsOffered().addListener((ListChangeListener<TargetMetric.Kind>) c -> {
      metricChoice.getItems().setAll(vm.metricsOffered());
      metricChoice.setValue(vm.metricProperty().get());
    });
    vm.metricProperty().addListener((o, a, b) -> metricChoice.setValue(b));
    metricChoice.valueProperty().addListener((o, a, b) -> {
      if (b != null) {
        vm.metricProperty().set(b);
      }
    });
    for (TextField f : new TextField[] {targetField, contrastField}) {
      f.textProperty().addListener((o, a, b) -> metricChoice.setConverter(metricWords()));
    }
    // the measure's words depend on the model and the input too (a [MASK] or not, a causal model): renamed with
    // each new trace (after RoBERTa the GPT-2 kept "original tokens" while the sweep said "next tokens")
    vm.predictionsProperty().addListener((ListChangeListener<PredictionRow>) c -> metricChoice.setConverter(metricWords()));
    followHeading.textProperty().bind(vm.followHeadingProperty());
    targetProblem.textProperty().bind(vm.targetProblemProperty());
    targetProblem.visibleProperty().bind(vm.targetProblemProperty().isNotEmpty());
    targetProblem.managedProperty().bind(targetProblem.visibleProperty());
    vm.targetRowsProperty().addListener((ListChangeListener<TargetRow>) c -> showTargets());
    vm.predictionsProperty().addListener((ListChangeListener<PredictionRow>) c -> refresh());
    vm.classesProperty().addListener((ListChangeListener<ClassRow>) c -> refresh());
    vm.emptyHintProperty().addListener((o, a, b) -> refresh());
    refresh();
  }

  /** A converter naming each measure with the words typed now (a new one makes the choice box redraw them). */
  private javafx.util.StringConverter<TargetMetric.Kind> metricWords() {
    return new javafx.util.StringConverter<>() {
      @Override
      public String toString(TargetMetric.Kind k) {
        return k == null ? "" : vm.metricWords(k);
      }

      @Override
      public TargetMetric.Kind fromString(String s) {
        return null;
      }
    };
  }

  private void showTargets() {
    targetRows.getChildren().clear();
    for (TargetRow r : vm.targetRowsProperty()) {
      Label head = new Label("[MASK] at " + r.position());
      head.getStyleClass().add("hs-small");
      targetRows.getChildren().add(head);
      for (String line : new String[] {r.probabilityLine(), r.logProbabilityLine(), r.logitDifferenceLine()}) {
        if (!line.isEmpty()) {
          Label l = new Label(line);
          l.getStyleClass().add("hs-number");
          l.setWrapText(true);
          l.setMinHeight(Region.USE_PREF_SIZE);
          targetRows.getChildren().add(l);
        }
      }
    }
  }

  private void refresh() {
    VBox box = rows;
    box.getChildren().clear();
    List<PredictionRow> predictions = vm.predictionsProperty();
    if (predictions.isEmpty() && vm.classesProperty().isEmpty()) {
      Label hint = new Label(vm.emptyHintProperty().get());
      hint.setWrapText(true);
      box.getChildren().add(hint);
    }
    for (PredictionRow r : predictions) {
      GridPane g = new GridPane();
      g.setHgap(10);
      g.setVgap(1);
      Label t = new Label(r.title() + (r.changed() ? "  —  before → after" : ""));
      t.getStyleClass().add("hs-heading");
      g.add(t, 0, 0, 4, 1);
      for (int k = 0; k < r.before().size(); k++) {
        TokenProbability b = r.before().get(k);
        g.add(new Label((k + 1) + "."), 0, k + 1);
        g.add(whole(new Label(b.token() + "  " + PredictionRow.percent(b.probability()))), 1, k + 1);
        if (r.changed() && k < r.after().size()) {
          TokenProbability a = r.after().get(k);
          Label al = new Label("→  " + a.token() + "  " + PredictionRow.percent(a.probability()));
          al.getStyleClass().add("prediction-after");
          al.pseudoClassStateChanged(States.CHANGED, !a.token().equals(b.token()));
          al.setId("after-" + r.title().replaceAll("\\D", "") + "-" + (k + 1));
          g.add(whole(al), 2, k + 1);
        }
      }
      t.setWrapText(true);
      Label s = new Label(r.summary());
      s.setId("summary-" + r.title().replaceAll("\\D", ""));
      s.setWrapText(true);
      s.getStyleClass().add("prediction-summary");
      g.add(s, 0, r.before().size() + 1, 4, 1);
      box.getChildren().add(g);
    }
    if (!vm.classesProperty().isEmpty()) {
      Label c = new Label("Classifier");
      c.getStyleClass().add("hs-heading");
      box.getChildren().add(c);
      for (ClassRow r : vm.classesProperty()) {
        box.getChildren().add(new Label(r.label() + ": " + PredictionRow.percent(r.before())
            + (Math.abs(r.after() - r.before()) > 0 ? " → " + PredictionRow.percent(r.after())
            + " (" + PredictionRow.signedPoints(r.after() - r.before()) + ")" : "")));
      }
    }
  }

  /**
   * A token and its probability are read whole or not at all: never cut to "everyone 0.…" (the panel
   * scrolls sideways instead, which it needs only in a window narrower than 1280 pixels).
   */
  private static Label whole(Label l) {
    l.setMinWidth(Region.USE_PREF_SIZE);
    return l;
  }
}
