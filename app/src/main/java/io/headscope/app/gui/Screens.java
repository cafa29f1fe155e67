package io.headscope.app.gui;

import io.headscope.app.gui.circuits.CircuitsView;
import io.headscope.app.gui.compare.CompareView;
import io.headscope.app.gui.corpus.CorpusView;
import io.headscope.app.gui.favor.FavorView;
import io.headscope.app.gui.flow.FlowView;
import io.headscope.app.gui.headmap.HeadMapView;
import io.headscope.app.gui.layers.LayersView;
import io.headscope.app.gui.linguistics.LinguisticsView;
import io.headscope.app.gui.lens.LensView;
import io.headscope.app.gui.patch.PatchView;
import io.headscope.app.gui.prune.PruneView;
import io.headscope.app.gui.screen.ScreenDescriptor;
import io.headscope.app.gui.sweep.SweepView;
import java.util.List;

/**
 * The screens of the app, in the order of the navigation and the Analysis menu ("All heads", the main
 * window's own, comes first). Each screen's package says its name, group, menu entry and how to build
 * it; a new screen is its own package plus one line here: no other screen, no main window changes.
 */
public final class Screens {
  private Screens() {}

  public static final List<ScreenDescriptor> ALL = List.of(
      HeadMapView.DESCRIPTOR,
      CorpusView.DESCRIPTOR,
      SweepView.DESCRIPTOR,
      PatchView.DESCRIPTOR,
      CircuitsView.DESCRIPTOR,
      LensView.DESCRIPTOR,
      PruneView.DESCRIPTOR,
      LinguisticsView.DESCRIPTOR,
      FlowView.DESCRIPTOR,
      LayersView.DESCRIPTOR,
      CompareView.DESCRIPTOR,
      FavorView.DESCRIPTOR);
}
