package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.app.gui.circuits.CircuitsViewModel;
import io.headscope.app.gui.compare.CompareViewModel;
import io.headscope.app.gui.corpus.CorpusViewModel;
import io.headscope.app.gui.exec.DirectWorker;
import io.headscope.app.gui.favor.FavorViewModel;
import io.headscope.app.gui.flow.FlowViewModel;
import io.headscope.app.gui.head.HeadViewModel;
import io.headscope.app.gui.headmap.HeadMapViewModel;
import io.headscope.app.gui.layers.LayersViewModel;
import io.headscope.app.gui.lens.LensViewModel;
import io.headscope.app.gui.linguistics.LinguisticsViewModel;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.gui.patch.PatchViewModel;
import io.headscope.app.gui.prune.PruneViewModel;
import io.headscope.app.gui.screen.ScreenModel;
import io.headscope.app.gui.session.TwoStacks;
import io.headscope.app.gui.sweep.SweepViewModel;
import io.headscope.model.core.AttentionKind;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.encoderdecoders.EncoderDecoderFolders;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 41, every screen or why not: with a T5 folder opened in the app, every screen besides All heads says in
 * one line why it has nothing (the line names the model and where its maps are), keeps no result of the BERT
 * before it, and goes back to its idle line when a single-stack model is opened again. The main window's
 * switches are per kind: a cross head switched off waits while the encoder is shown and comes back with cross.
 */
class EncoderDecoderScreensTest {
  @TempDir static Path dir;

  @Test
  void everyOtherScreenSaysInOneLineWhyNotAndKeepsNothingOfTheModelBefore() {
    Path bert = TinyBert.create(2, 3, 7).writeTo(dir.resolve("bert")).config().getParent();
    Path t5 = EncoderDecoderFolders.write("t5", dir.resolve("t5"), 21);
    MainViewModel main = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    main.textAProperty().set("the king said that [MASK] was in paris .");
    main.loadModel(bert.toString());
    main.analyse();
    var s = main.session();
    Map<String, ScreenModel<?>> screens = new LinkedHashMap<>();
    LensViewModel lens = new LensViewModel(s);
    screens.put("head map", new HeadMapViewModel(s, main.scoresProperty()));
    screens.put("corpus", new CorpusViewModel(s));
    screens.put("sweep", new SweepViewModel(s));
    screens.put("patch", new PatchViewModel(s));
    screens.put("circuits", new CircuitsViewModel(s));
    screens.put("lens", lens);
    screens.put("prune", new PruneViewModel(s));
    screens.put("linguistics", new LinguisticsViewModel(s));
    screens.put("flow", new FlowViewModel(s));
    screens.put("layers", new LayersViewModel(s));
    screens.put("compare", new CompareViewModel(s, main.repository()));
    screens.put("favor", new FavorViewModel(s));
    Map<String, String> idle = new LinkedHashMap<>();
    screens.forEach((k, v) -> idle.put(k, v.statusProperty().get()));
    HeadViewModel head = new HeadViewModel(s);
    head.neuron().shownProperty().set(true);
    lens.targetProperty().set("paris");
    lens.run();
    assertThat(lens.resultProperty().get()).as(lens.statusProperty().get()).isNotNull();

    main.textAProperty().set(EncoderDecoderFolders.source("t5"));
    main.textBProperty().set(EncoderDecoderFolders.target("t5"));
    main.loadModel(t5.toString());
    TwoStacks two = s.twoStacks();
    assertThat(two).isNotNull();
    assertThat(two.intact()).as(main.statusProperty().get()).isNotNull();
    assertThat(s.model()).isNull();
    String line = TwoStacks.refusal(two);
    assertThat(line).contains("t5").contains("T5 encoder-decoder").contains("All heads").doesNotContain("\n");
    screens.forEach((k, v) -> {
      assertThat(v.statusProperty().get()).as(k).isEqualTo(line);
      assertThat(v.resultProperty().get()).as(k).isNull();
      assertThat(v.runningProperty().get()).as(k).isFalse();
    });
    // the neuron view of the head view and the predictions panel's follow box say so too
    assertThat(head.neuron().noteProperty().get()).contains("T5 encoder-decoder").contains("the neuron view");
    assertThat(head.neuron().viewProperty().get()).isNull();
    assertThat(main.predictions().followHeadingProperty().get()).contains("single stacks only");

    // the line drawing's whole layer on cross: every head of the layer, target rows by source columns
    main.select(new Head(1, 0));
    var layer = head.layerMatrices();
    assertThat(layer).hasSize(two.model().config().decoderHeads());
    for (int h = 0; h < layer.size(); h++) {
      assertThat(layer.get(h).rowTokens()).isEqualTo(s.twoStacks().intact().target().tokens());
      assertThat(layer.get(h).colTokens()).isEqualTo(s.twoStacks().intact().source().tokens());
      assertThat(layer.get(h).values()).isDeepEqualTo(s.twoStacks().intact().cross()[1][h]);
    }

    // switches per kind: a cross head off waits while the encoder is shown
    main.encoderDecoder().setKind(AttentionKind.CROSS);
    main.toggleHead(new Head(1, 0));
    assertThat(s.twoStacks().asRun().mask().of(AttentionKind.CROSS).off()).containsExactly(new Head(1, 0));
    main.encoderDecoder().setKind(AttentionKind.ENCODER);
    assertThat(s.mask().isEmpty()).isTrue();
    assertThat(main.encoderDecoder().mask().of(AttentionKind.CROSS).off()).containsExactly(new Head(1, 0));
    assertThat(main.layersProperty().get()).isEqualTo(two.model().config().encoderLayers());
    assertThat(main.undoNameProperty().get()).as("no undo across kinds").isEmpty();
    main.toggleHead(new Head(0, 1));
    assertThat(s.twoStacks().asRun().mask().of(AttentionKind.ENCODER).off()).containsExactly(new Head(0, 1));
    assertThat(s.twoStacks().asRun().mask().of(AttentionKind.CROSS).off()).containsExactly(new Head(1, 0));
    main.encoderDecoder().setKind(AttentionKind.CROSS);
    assertThat(s.mask()).isEqualTo(HeadMask.of(Set.of(new Head(1, 0)), HeadMask.Mode.ZERO));

    // a single-stack model again: every screen is back to its idle line
    main.textAProperty().set("the king said that [MASK] was in paris .");
    main.textBProperty().set("");
    main.loadModel(bert.toString());
    assertThat(s.twoStacks()).isNull();
    assertThat(s.model()).isNotNull();
    screens.forEach((k, v) -> assertThat(v.statusProperty().get()).as(k).isEqualTo(idle.get(k)));
    assertThat(head.neuron().noteProperty().get()).doesNotContain("encoder-decoder");
  }
}
