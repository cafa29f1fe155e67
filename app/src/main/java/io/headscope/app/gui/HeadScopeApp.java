package io.headscope.app.gui;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.store.ModelRepository;
import javafx.application.Application;
import javafx.application.Platform;
import javafx.concurrent.Task;
import javafx.geometry.Insets;
import javafx.scene.Scene;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.Spinner;
import javafx.scene.control.TextField;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;
import javafx.scene.paint.Color;
import javafx.stage.Stage;

/** The desktop app: loads the embedded model in the background and shows one head's heatmap. */
public final class HeadScopeApp extends Application {
  private BertModel model;
  private final Label status = new Label("Loading bert-base-uncased...");
  private final ProgressBar progress = new ProgressBar(-1);
  private final TextField text = new TextField("The cat sat on the mat because it was tired.");
  private final Spinner<Integer> layer = new Spinner<>(1, 12, 1);
  private final Spinner<Integer> head = new Spinner<>(1, 12, 1);
  private final Canvas canvas = new Canvas(640, 640);
  private AttentionTrace trace;

  public static void launchApp(String[] args) {
    Application.launch(HeadScopeApp.class, args);
  }

  @Override
  public void start(Stage stage) {
    HBox controls = new HBox(8, new Label("Layer"), layer, new Label("Head"), head, progress, status);
    controls.setPadding(new Insets(8));
    VBox top = new VBox(4, text, controls);
    top.setPadding(new Insets(8));
    BorderPane root = new BorderPane(canvas, top, null, null, null);
    stage.setScene(new Scene(root, 1000, 760));
    stage.setTitle("HeadScope");
    stage.show();
    text.setOnAction(e -> analyse());
    layer.valueProperty().addListener((o, a, b) -> draw());
    head.valueProperty().addListener((o, a, b) -> draw());
    Task<BertModel> load = new Task<>() {
      @Override
      protected BertModel call() {
        var files = ModelRepository.standard().resolve(ModelRepository.DEFAULT_MODEL,
            (s, f) -> { updateMessage(s); updateProgress(f, 1); });
        return BertModel.load(files);
      }
    };
    status.textProperty().bind(load.messageProperty());
    load.setOnSucceeded(e -> {
      status.textProperty().unbind();
      model = load.getValue();
      status.setText(model.name());
      analyse();
    });
    load.setOnFailed(e -> {
      status.textProperty().unbind();
      status.setText(load.getException().getMessage());
    });
    new Thread(load, "model-loader").start();
  }

  private void analyse() {
    if (model == null) {
      return;
    }
    try {
      trace = model.trace(model.encode(text.getText(), null));
      progress.setVisible(false);
      draw();
    } catch (RuntimeException e) {
      status.setText(e.getMessage());
    }
  }

  private void draw() {
    if (trace == null) {
      return;
    }
    float[][] map = trace.attention()[layer.getValue() - 1][head.getValue() - 1];
    int n = map.length;
    GraphicsContext g = canvas.getGraphicsContext2D();
    g.setFill(Color.WHITE);
    g.fillRect(0, 0, canvas.getWidth(), canvas.getHeight());
    double margin = 100;
    double cell = (canvas.getWidth() - margin) / n;
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        g.setFill(Color.hsb(220, Math.min(1, map[i][j]), 1 - 0.4 * map[i][j]));
        g.fillRect(margin + j * cell, margin + i * cell, cell, cell);
      }
      g.setFill(Color.BLACK);
      g.fillText(trace.tokens().get(i), 4, margin + i * cell + cell * 0.6);
    }
  }

  @Override
  public void stop() {
    if (model != null) {
      model.close();
    }
    Platform.exit();
  }
}
