package io.headscope.app.gui.patch;

import io.headscope.analysis.causal.PatchDirection;
import io.headscope.analysis.causal.PatchSite;
import io.headscope.app.gui.chart.SignedHeadGrid;
import io.headscope.app.gui.screen.ExportItem;
import io.headscope.app.gui.screen.ScreenContext;
import io.headscope.app.gui.screen.ScreenDescriptor;
import io.headscope.app.gui.screen.ScreenView;
import io.headscope.model.core.Head;
import java.util.List;
import javafx.fxml.FXML;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.TextField;
import javafx.scene.layout.VBox;
import javafx.util.StringConverter;

/**
 * The Patching screen: activation patching per head (output, q, k or v) between a clean and a corrupted
 * input, with attribution patching's estimate beside it; a click opens the head; CSV (the CLI's) and figure.
 */
public final class PatchView extends ScreenView<PatchViewModel> {
  /** Its place in the navigation and its Analysis menu entry. */
  public static final ScreenDescriptor DESCRIPTOR = new ScreenDescriptor("patch", "Causes", "Patching",
      "Patching: which heads carry a behaviour from a clean to a corrupted input…",
      "Activation patching: put one head's activation from another input back, and see what it restores",
      c -> new PatchView(new PatchViewModel(c.session()), c));

  @FXML private TextField cleanField;
  @FXML private TextField corruptedField;
  @FXML private TextField targetField;
  @FXML private TextField contrastField;
  @FXML private ChoiceBox<PatchSite> siteChoice;
  @FXML private ChoiceBox<PatchDirection> directionChoice;
  @FXML private CheckBox attributionBox;
  @FXML private CheckBox klBox;
  @FXML private Label hover;
  @FXML private ScrollPane scroll;
  @FXML private javafx.scene.layout.FlowPane results;
  @FXML private VBox attributionBox2;
  @FXML private SignedHeadGrid grid;
  @FXML private SignedHeadGrid attributionGrid;
  @FXML private Label attributionTitle;
  @FXML private Label gridTitle;
  private Head opened;

  public PatchView(PatchViewModel vm, ScreenContext context) {
    super(vm, context);
    blankOnNewModel(hover);
    cleanField.textProperty().bindBidirectional(vm.cleanProperty());
    // the main window's sentence is the clean input until another is typed
    cleanField.promptTextProperty().bind(context.session().traceProperty().map(t -> vm.cleanText()));
    corruptedField.textProperty().bindBidirectional(vm.corruptedProperty());
    targetField.textProperty().bindBidirectional(vm.targetProperty());
    contrastField.textProperty().bindBidirectional(vm.contrastProperty());
    siteChoice.getItems().setAll(PatchViewModel.SITES);
    siteChoice.setConverter(converter(s -> switch (s) {
      case HEAD -> "each head's output";
      case Q -> "each head's queries";
      case K -> "each head's keys";
      case V -> "each head's values";
      case RESID_PRE -> "each layer's input per token (resid_pre)";
      case RESID_MID -> "after attention per token (resid_mid)";
      case RESID_POST -> "each layer's output per token (resid_post)";
      case MLP -> "each MLP's output per token";
      default -> s.label();
    }));
    siteChoice.valueProperty().bindBidirectional(vm.siteProperty());
    directionChoice.getItems().setAll(PatchDirection.values());
    directionChoice.setConverter(converter(d -> d == PatchDirection.DENOISE
        ? "denoise (corrupted run, clean value)" : "noise (clean run, corrupted value)"));
    directionChoice.valueProperty().bindBidirectional(vm.directionProperty());
    attributionBox.selectedProperty().bindBidirectional(vm.attributionProperty());
    // attribution patching estimates heads only (as the CLI's --attribution), and not KL (its gradient at the
    // clean run is zero when noising)
    attributionBox.disableProperty().bind(siteChoice.valueProperty().map(s -> s != null && !s.perHead())
        .flatMap(notHeads -> vm.klProperty().map(kl -> notHeads || kl)));
    klBox.selectedProperty().bindBidirectional(vm.klProperty());
    klBox.setTooltip(new javafx.scene.control.Tooltip("Measure KL(clean || patched) of the model's whole output "
        + "distribution at [MASK] instead of the followed word: recovered = 1 - KL(clean||patched) / "
        + "KL(clean||corrupted). No word needed."));
    bindRun(vm::run);
    results.visibleProperty().bind(vm.resultProperty().isNotNull());
    vm.resultProperty().addListener((o, a, b) -> {
      opened = null;
      refresh();
    });
    for (SignedHeadGrid g : List.of(grid, attributionGrid)) {
      g.onHead(h -> {
        opened = h;
        vm.select(h);
        refresh();
      }, h -> hover.setText(vm.describe(h)));
    }
    scroll.viewportBoundsProperty().addListener((o, a, b) -> refresh());
  }

  private static <T> StringConverter<T> converter(java.util.function.Function<T, String> text) {
    return new StringConverter<>() {
      @Override
      public String toString(T t) {
        return t == null ? "" : text.apply(t);
      }

      @Override
      public T fromString(String s) {
        return null;
      }
    };
  }

  @Override
  public List<ExportItem> exports() {
    return List.of(whenDone("export-patch-csv", "Patching CSV (as headscope patch)…", this::exportCsv),
        whenDone("export-patch-figure", "Patching grid as figure (PNG 300 dpi or SVG)…", this::exportFigure));
  }

  /** The CSV the CLI writes for the same run. */
  public void exportCsv() {
    context.dialogs().export("patching CSV", "csv", "patch.csv", vm.resultProperty()::get, PatchViewModel::writeCsv);
  }

  /** The recovered-share grid as a PNG (300 dpi) or SVG figure. */
  public void exportFigure() {
    context.dialogs().exportFigure("patch", vm::figure);
  }

  private void refresh() {
    double w = scroll.getViewportBounds().getWidth();
    // side by side once two grids of readable cells (24 px, numbers written) fit; else one above the other
    double pane = w > 0 ? w : 500;
    double width = pane >= 2 * (SignedHeadGrid.LEFT + 12 * 24 + 8) + 16 ? (pane - 16) / 2 - 4 : pane - 8;
    var r = vm.resultProperty().get();
    java.util.List<String> tokens = r == null || r.site().perHead() ? null
        : java.util.stream.IntStream.range(0, r.cells()).mapToObj(i -> r.cleanTokens().get(i)
            + (r.corruptedTokens().get(i).equals(r.cleanTokens().get(i)) ? "" : "/" + r.corruptedTokens().get(i))).toList();
    gridTitle.setText(tokens == null ? "Exact patching: recovered share per head (blue: restores, red: works against)"
        : "Exact patching of " + r.site().label() + ": recovered share per layer and token (clean/corrupted where they "
            + "differ; blue: restores, red: works against)");
    gridTitle.setMaxWidth(tokens == null ? 420 : Math.max(200, (w > 0 ? w : 500) - 16));
    // a token grid takes the whole width: its columns are many
    grid.show(vm.recovered(), tokens == null ? opened : null, tokens == null ? width : (w > 0 ? w - 8 : 500), tokens);
    double[][] att = vm.attributed();
    attributionGrid.show(att == null ? new double[0][0] : att, opened, width);
    attributionBox2.setVisible(att != null);
    attributionBox2.setManaged(att != null);
  }

  /** For tests: the exact grid. */
  SignedHeadGrid grid() {
    return grid;
  }
}
