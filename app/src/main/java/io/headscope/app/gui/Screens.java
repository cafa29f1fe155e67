package io.headscope.app.gui;

import io.headscope.app.gui.compare.CompareView;
import io.headscope.app.gui.corpus.CorpusView;
import io.headscope.app.gui.favor.FavorView;
import io.headscope.app.gui.flow.FlowView;
import io.headscope.app.gui.headmap.HeadMapView;
import io.headscope.app.gui.layers.LayersView;
import io.headscope.app.gui.linguistics.LinguisticsView;
import io.headscope.app.gui.prune.PruneView;
import io.headscope.app.gui.screen.ScreenDescriptor;
import io.headscope.app.gui.sweep.SweepView;
import java.util.List;

/**
 * The screens of the app, in the order of the navigation and the Analysis menu, under their groups.
 * "All heads" is the main window's own and comes first. A new screen is its own package plus one line
 * here: no other screen, no main window changes.
 */
public final class Screens {
  private Screens() {}

  public static final List<ScreenDescriptor> ALL = List.of(
      new ScreenDescriptor("head-map", "Heads", "Head map", "Head map: which heads attend alike (Clark et al.)",
          "Head map: which heads attend alike (Jensen-Shannon, MDS)", HeadMapView::screen),
      new ScreenDescriptor("corpus", "Heads", "Corpus", "Corpus run: classify every head over a corpus…",
          "Corpus: categories and token types over a whole file", CorpusView::screen),
      new ScreenDescriptor("sweep", "Causes", "Sweep", "Ablation sweep: every head off alone",
          "Ablation sweep: every head switched off in turn, the metric you choose", SweepView::screen),
      new ScreenDescriptor("prune", "Causes", "Pruning", "Pruning curves: importance vs random order…",
          "Pruning curves: heads removed in order of importance, and at random", PruneView::screen),
      new ScreenDescriptor("linguistics", "Linguistics", "Syntax, coref",
          "Linguistics: which heads track syntax and coreference (CoNLL-U)…",
          "Linguistics: which heads track dependency relations and coreference in a treebank",
          LinguisticsView::screen),
      new ScreenDescriptor("flow", "Flow", "Rollout, flow", "Information flow: attention rollout and flow (Abnar & Zuidema)",
          "Information flow: attention rollout, attention flow and token Jacobians", FlowView::screen),
      new ScreenDescriptor("layers", "Flow", "Layers", "Layers: which layers can stand in for which",
          "Layer compatibility: which layers can stand in for which", LayersView::screen),
      new ScreenDescriptor("compare", "Models", "Compare",
          "Compare: the loaded model against a fine-tuned one, head by head (Kovaleva)",
          "Compare: the loaded model against a second checkpoint (e.g. fine-tuned), head by head",
          CompareView::screen),
      new ScreenDescriptor("favor", "Models", "FAVOR+",
          "Linear attention: which heads FAVOR+ approximates (Performer)",
          "Linear attention: which heads Performer's FAVOR+ could replace", FavorView::screen));
}
