package io.headscope.app.gui.main;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/** The Help menu's pages: the project's definitions (METHODS.md, built into the jar), mouse and keys, about. */
final class Help {
  static final String SHORTCUTS = """
      Input
        Type a sentence; the model runs when you pause (350 ms) or press Enter.
        [MASK] (any case) asks the model to predict that word. The second field makes a sentence pair.
        While a new input is analysed, the previous result stays on screen, faded.

      All heads (grid: layers down, heads across)
        Click a map          show that head large (head view, panel, predictions); never switches it
        X or Delete          switch the selected head (or the picked heads) off / on
        Right-click a map    a menu: switch that head, or its layer, off / on
        Ctrl-click           pick several heads;  X or Delete switches the picked heads
        Esc                  clear the picks
        L1 … L12             switch a whole layer off / on
        Ctrl+Z               undo the last switch;  Ctrl+Shift+Z or Ctrl+Y redoes it (Heads menu)
        Heads › head sets    save the heads now off under a name; apply a set; CLI: --disable @NAME
        Frame colour         the head's Kovaleva category (legend above; click a category to hide it)
        Maps: intact | as run | difference
                             the intact model's maps, the maps with the switched-off heads as the model
                             ran them, or as run − intact (red: less attention, blue: more)

      Head view
        Point at a cell      read its value and both tokens
        Ctrl + mouse wheel   zoom;  Fit fills the pane;  drag to pan
        Show                 attention weights, norm-weighted attention, or the whole layer's norm map
        Lines (BertViz)      the strongest lines per token; point at a token to see only its lines;
                             "All heads of the layer" overlays the layer's heads in their own colours

      Predictions
        Before → after for each [MASK]; pick a target (and a contrast) to follow its probability,
        log-probability and logit difference as heads go off.
      """;

  private Help() {}

  /** METHODS.md as shipped in the jar (from docs/ at build time). */
  static String definitions() {
    try (InputStream in = Help.class.getResourceAsStream("/io/headscope/app/gui/help/METHODS.md")) {
      if (in == null) {
        return "The definitions (docs/METHODS.md) are not in this build.";
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "The definitions could not be read: " + e.getMessage();
    }
  }

  static String about(String model) {
    return "HeadScope: every attention head of a BERT, offline.\n\nModel: " + model
        + "\nJava " + Runtime.version() + ", JavaFX " + System.getProperty("javafx.runtime.version", "?")
        + "\n\nThe command line (./headscope --help) runs the same analyses over corpora.";
  }
}
