package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.app.gui.exec.DirectWorker;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Undo, redo and head sets in the main view model, without a window (same-thread worker). */
class SwitchHistoryViewModelTest {
  @TempDir static Path dir;
  static Path tiny;
  static Path other;

  @BeforeAll
  static void writeModels() {
    tiny = TinyBert.create(2, 3, 7).writeTo(dir.resolve("tiny")).config().getParent();
    other = TinyBert.create(3, 2, 8).writeTo(dir.resolve("other")).config().getParent();
  }

  private MainViewModel loaded() {
    MainViewModel vm = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    vm.setHeadSetsFile(dir.resolve("sets-" + System.nanoTime() + ".txt"));
    vm.textAProperty().set("the cat sat on the [MASK] .");
    vm.loadModel(tiny.toString());
    return vm;
  }

  @Test
  void undoNamesEachKindOfSwitchAndRedoIsForgottenByANewChange() {
    MainViewModel vm = loaded();
    assertThat(vm.undoNameProperty().get()).isEmpty();
    vm.toggleHead(new Head(1, 2));
    assertThat(vm.undoNameProperty().get()).isEqualTo("switch 2-3 off");
    vm.toggleLayer(0);
    assertThat(vm.undoNameProperty().get()).isEqualTo("switch layer 1 off");
    vm.switchAllOn();
    assertThat(vm.undoNameProperty().get()).isEqualTo("all heads on");
    vm.undo();
    assertThat(vm.maskProperty().get().off()).hasSize(4);
    assertThat(vm.redoNameProperty().get()).isEqualTo("all heads on");
    vm.toggleHead(new Head(0, 0)); // back on: a new change, the redo of "all heads on" is gone
    assertThat(vm.undoNameProperty().get()).isEqualTo("switch 1-1 on");
    assertThat(vm.redoNameProperty().get()).isEmpty();
  }

  /** Issue 40: "difference" stayed chosen after every switch was undone, an empty map in every frame. */
  @Test
  void theDifferenceGoesBackToIntactOnceNoHeadIsOff() {
    MainViewModel vm = loaded();
    vm.toggleHead(new Head(1, 2));
    vm.toggleHead(new Head(0, 1));
    vm.session().mapsShownProperty().set(io.headscope.app.render.MapsShown.DIFFERENCE);
    vm.undo();
    assertThat(vm.session().mapsShownProperty().get()).as("one head still off")
        .isEqualTo(io.headscope.app.render.MapsShown.DIFFERENCE);
    vm.undo();
    assertThat(vm.maskProperty().get().isEmpty()).isTrue();
    assertThat(vm.session().mapsShownProperty().get()).isEqualTo(io.headscope.app.render.MapsShown.INTACT);
    vm.toggleHead(new Head(0, 1));
    vm.session().mapsShownProperty().set(io.headscope.app.render.MapsShown.DIFFERENCE);
    vm.switchAllOn();
    assertThat(vm.session().mapsShownProperty().get()).isEqualTo(io.headscope.app.render.MapsShown.INTACT);
  }

  @Test
  void undoRestoresTheMaskAndTheTraceAsRunWithIt() {
    MainViewModel vm = loaded();
    vm.toggleHead(new Head(1, 2));
    HeadMask one = vm.maskProperty().get();
    io.headscope.model.AttentionTrace oneRun = vm.ablatedProperty().get();
    float[][] asRun = oneRun.map(new Head(1, 0));
    vm.toggleLayer(1);
    io.headscope.model.AttentionTrace twoRun = vm.ablatedProperty().get();
    vm.undo();
    assertThat(vm.maskProperty().get()).isEqualTo(one);
    assertThat(vm.ablatedProperty().get().mask().off()).isEqualTo(one.off());
    assertThat(vm.ablatedProperty().get().map(new Head(1, 0))).isDeepEqualTo(asRun);
    // the run kept from before: undo on a long input is instant, not another model run
    assertThat(vm.ablatedProperty().get()).isSameAs(oneRun);
    vm.redo();
    assertThat(vm.ablatedProperty().get()).isSameAs(twoRun);
    vm.undo();
    vm.undo();
    assertThat(vm.maskProperty().get().isEmpty()).isTrue();
    assertThat(vm.ablatedProperty().get()).isSameAs(vm.traceProperty().get());
    vm.undo(); // nothing left: no change, no error
    assertThat(vm.maskProperty().get().isEmpty()).isTrue();
    assertThat(vm.errorProperty().get()).isNull();
  }

  @Test
  void aNewModelClearsTheHistory() {
    MainViewModel vm = loaded();
    vm.toggleHead(new Head(1, 2));
    vm.undo();
    vm.loadModel(other.toString());
    assertThat(vm.undoNameProperty().get()).isEmpty();
    assertThat(vm.redoNameProperty().get()).isEmpty();
  }

  @Test
  void aSavedSetAppliedGivesTheSameMaskAndReplacesTheSwitches() throws Exception {
    MainViewModel vm = loaded();
    vm.toggleHead(new Head(0, 1));
    vm.toggleLayer(1);
    HeadMask saved = vm.maskProperty().get();
    vm.saveHeadSet("gender");
    assertThat(Files.readString(vm.headSetsFile())).contains("gender: 1-2, L2");
    vm.switchAllOn();
    vm.toggleHead(new Head(0, 0));
    vm.applyHeadSet("gender");
    assertThat(vm.maskProperty().get()).isEqualTo(saved);
    assertThat(vm.ablatedProperty().get().mask().off()).isEqualTo(saved.off());
    vm.undo();
    assertThat(vm.maskProperty().get().off()).isEqualTo(Set.of(new Head(0, 0)));
  }

  @Test
  void anUnknownSetIsAnErrorNamingTheKnownOnes() {
    MainViewModel vm = loaded();
    vm.toggleHead(new Head(0, 1));
    vm.saveHeadSet("gender");
    vm.applyHeadSet("gendr");
    assertThat(vm.errorProperty().get()).contains("gendr", "known: gender");
    assertThat(vm.maskProperty().get().off()).containsExactly(new Head(0, 1));
  }
}
