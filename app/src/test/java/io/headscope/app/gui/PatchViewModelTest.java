package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.analysis.causal.ActivationPatching;
import io.headscope.analysis.causal.AttributionPatching;
import io.headscope.analysis.causal.PatchCsv;
import io.headscope.analysis.causal.PatchDirection;
import io.headscope.analysis.causal.PatchInputs;
import io.headscope.analysis.causal.PatchResult;
import io.headscope.analysis.causal.PatchSite;
import io.headscope.app.gui.exec.DirectWorker;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.gui.patch.PatchViewModel;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Patching screen computes what the patch command computes (the same services, called here directly),
 * takes the main window's sentence and followed word when none is typed, and refuses what cannot run in
 * its status line.
 */
class PatchViewModelTest {
  static final String CLEAN = "the king was in paris and [MASK] was a queen .";
  static final String CORRUPTED = "the queen was in paris and [MASK] was a king .";
  @TempDir static Path dir;
  static MainViewModel main;

  @BeforeAll
  static void load() {
    Path tiny = TinyBert.create(2, 3, 7).writeTo(dir.resolve("tiny")).config().getParent();
    main = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    main.textAProperty().set(CLEAN);
    main.loadModel(tiny.toString());
    main.analyse();
  }

  @Test
  void theGridIsTheServicesRecoveredShareAndTheCsvTheCommandsBytes() throws Exception {
    PatchViewModel vm = new PatchViewModel(main.session());
    assertThat(vm.cleanText()).as("the main window's sentence").isEqualTo(CLEAN);
    vm.corruptedProperty().set(CORRUPTED);
    vm.targetProperty().set("she");
    vm.contrastProperty().set("he");
    vm.run();
    PatchResult r = vm.resultProperty().get();
    assertThat(r).as(vm.statusProperty().get()).isNotNull();

    BertModel m = main.session().model();
    TargetMetric metric = new TargetMetric(TargetMetric.Kind.LOGIT_DIFF, m.tokenizer().singleTokenId("she"),
        m.tokenizer().singleTokenId("he"));
    PatchInputs in = PatchInputs.of(m, CLEAN, CORRUPTED);
    PatchResult want = new ActivationPatching(m).run(in, metric, PatchSite.HEAD, PatchDirection.DENOISE);
    double[][] attribution = new AttributionPatching(m).run(in, metric, PatchSite.HEAD, PatchDirection.DENOISE);
    double[][] grid = vm.recovered();
    double[][] estimate = vm.attributed();
    for (int l = 0; l < 2; l++) {
      for (int h = 0; h < 3; h++) {
        assertThat(grid[l][h]).isEqualTo(want.recovered(l, h));
        assertThat(estimate[l][h]).isEqualTo(want.withAttribution(attribution).attributedShare(l, h));
      }
    }
    assertThat(vm.statusProperty().get()).contains("logit_diff: clean").contains("Spearman");
    assertThat(vm.describe(new Head(1, 2))).contains("head 2-3").contains("recovered");

    Path csv = dir.resolve("patch.csv");
    PatchViewModel.writeCsv(r, csv);
    ByteArrayOutputStream cli = new ByteArrayOutputStream();
    PatchCsv.write(List.of(want.withAttribution(attribution)), cli);
    assertThat(Files.readString(csv)).isEqualTo(cli.toString(java.nio.charset.StandardCharsets.UTF_8));
    assertThat(vm.figure().title()).contains("activation patching: denoise, head");
    // the ranking of heads in the main window can use the shares
    assertThat(main.rank().choices()).contains("recovered share, denoise head (Patching)");
  }

  /** KL needs no followed word; the grid is the service's KL shares and no attribution is offered. */
  @Test
  void klOfTheWholeDistributionNeedsNoWordAndIsTheServices() {
    PatchViewModel vm = new PatchViewModel(main.session());
    vm.cleanProperty().set(CLEAN);
    vm.corruptedProperty().set(CORRUPTED);
    vm.targetProperty().set("");
    vm.contrastProperty().set("");
    vm.klProperty().set(true);
    vm.run();
    PatchResult r = vm.resultProperty().get();
    assertThat(r).as(vm.statusProperty().get()).isNotNull();
    assertThat(r.hasAttribution()).isFalse();
    BertModel m = main.session().model();
    PatchResult want = new ActivationPatching(m).run(PatchInputs.of(m, CLEAN, CORRUPTED),
        io.headscope.analysis.causal.PatchMetric.kl(null), PatchSite.HEAD, PatchDirection.DENOISE);
    for (int l = 0; l < 2; l++) {
      for (int h = 0; h < 3; h++) {
        assertThat(vm.recovered()[l][h]).isEqualTo(want.recovered(l, h));
      }
    }
    assertThat(r.clean()).isEqualTo(0.0);
    assertThat(r.corrupted()).isGreaterThan(0);
    assertThat(vm.statusProperty().get()).contains("kl");
  }

  @Test
  void theResidualStreamPerTokenIsTheServicesAndNamesItsCells() {
    PatchViewModel vm = new PatchViewModel(main.session());
    vm.cleanProperty().set(CLEAN);
    vm.corruptedProperty().set(CORRUPTED);
    vm.targetProperty().set("she");
    vm.contrastProperty().set("he");
    vm.siteProperty().set(PatchSite.RESID_PRE);
    vm.directionProperty().set(PatchDirection.NOISE);
    vm.run();
    PatchResult r = vm.resultProperty().get();
    assertThat(r).as(vm.statusProperty().get()).isNotNull();
    assertThat(r.hasAttribution()).as("attribution is per head only").isFalse();
    BertModel m = main.session().model();
    TargetMetric metric = new TargetMetric(TargetMetric.Kind.LOGIT_DIFF, m.tokenizer().singleTokenId("she"),
        m.tokenizer().singleTokenId("he"));
    PatchResult want = new ActivationPatching(m).run(PatchInputs.of(m, CLEAN, CORRUPTED), metric, PatchSite.RESID_PRE,
        PatchDirection.NOISE);
    assertThat(vm.recovered()).hasDimensions(2, want.cells());
    for (int l = 0; l < 2; l++) {
      for (int c = 0; c < want.cells(); c++) {
        assertThat(vm.recovered()[l][c]).isEqualTo(want.recovered(l, c));
      }
    }
    // position 2 is king in the clean input and queen in the corrupted one
    assertThat(vm.describe(new Head(0, 2))).startsWith("layer 1, position 2 (king / queen)");
    assertThat(vm.statusProperty().get()).contains("Necessary most: layer");
  }

  @Test
  void inputsOfDifferentLengthsOrAWordOutsideTheVocabularySayWhyAndChangeNothing() {
    PatchViewModel vm = new PatchViewModel(main.session());
    vm.targetProperty().set("she");
    vm.run();
    assertThat(vm.statusProperty().get()).startsWith("Type both inputs");
    vm.corruptedProperty().set("the queen was in paris and [MASK] was a very tall king .");
    vm.run();
    assertThat(vm.statusProperty().get()).contains("token").doesNotContain("\n");
    assertThat(vm.resultProperty().get()).isNull();
    vm.corruptedProperty().set(CORRUPTED);
    vm.targetProperty().set("xylophonist");
    vm.run();
    assertThat(vm.resultProperty().get()).isNull();
    assertThat(vm.statusProperty().get()).doesNotContain("\n").isNotBlank();
    assertThat(main.session().errorProperty().get()).isNull();
  }
}
