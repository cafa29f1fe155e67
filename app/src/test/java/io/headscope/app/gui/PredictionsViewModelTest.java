package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.app.gui.exec.DirectWorker;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.gui.predict.PredictionsViewModel;
import io.headscope.app.gui.predict.TargetRow;
import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.model.core.Head;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The predictions panel follows the session's traces, without a window. */
class PredictionsViewModelTest {
  @TempDir Path dir;

  @Test
  void rowsFollowTheTracesAndClearWithThem() {
    Path tiny = TinyBert.create(2, 3, 5).writeTo(dir.resolve("tiny")).config().getParent();
    MainViewModel main = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    PredictionsViewModel vm = main.predictions();
    assertThat(vm.predictionsProperty()).isEmpty();
    assertThat(vm.emptyHintProperty().get()).contains("[MASK]");

    main.textAProperty().set("the cat sat on the [MASK] .");
    main.loadModel(tiny.toString());
    assertThat(vm.predictionsProperty()).hasSize(1);
    assertThat(vm.predictionsProperty().get(0).changed()).isFalse();

    main.toggleHead(new Head(1, 2));
    assertThat(vm.predictionsProperty().get(0).changed()).isTrue();
    assertThat(vm.predictionsProperty().get(0).after().get(0).token())
        .isEqualTo(main.ablatedProperty().get().predictions().get(0).top().get(0).token());

    main.textAProperty().set(" ");
    main.analyse();
    assertThat(vm.predictionsProperty()).isEmpty();
    assertThat(vm.classesProperty()).isEmpty();
  }

  /**
   * The followed target's numbers come from a log-prob readout; checked against the masked-LM
   * readout the trace carries (a different path through the engine): the intact top token's
   * log-probability is the log of its shown probability, before and after a head goes off, and the
   * logit difference of the top two tokens is the log of their probability ratio.
   */
  @Test
  void aFollowedTargetAgreesWithThePredictionsBeforeAndAfter() {
    Path tiny = TinyBert.create(2, 3, 5).writeTo(dir.resolve("tiny")).config().getParent();
    MainViewModel main = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    PredictionsViewModel vm = main.predictions();
    main.textAProperty().set("the cat sat on the [mask] .");
    main.loadModel(tiny.toString());
    assertThat(main.inputNoteProperty().get()).contains("[mask] read as [MASK]");
    var top = main.traceProperty().get().predictions().get(0).top();
    String first = top.get(0).token();
    String second = top.get(1).token();

    vm.targetWordProperty().set(first);
    vm.contrastWordProperty().set(second);
    vm.metricProperty().set(TargetMetric.Kind.LOGIT_DIFF);
    vm.follow();
    assertThat(vm.targetProblemProperty().get()).isEmpty();
    TargetRow r = vm.targetRowsProperty().get(0);
    assertThat(r.logBefore()).isCloseTo(Math.log(top.get(0).probability()), within(1e-4));
    assertThat(r.logBefore() - r.contrastBefore())
        .isCloseTo(Math.log(top.get(0).probability() / top.get(1).probability()), within(1e-4));
    assertThat(r.logAfter()).isEqualTo(r.logBefore());
    assertThat(main.session().target()).isEqualTo(new TargetMetric(TargetMetric.Kind.LOGIT_DIFF,
        main.modelProperty().get().tokenizer().singleTokenId(first),
        main.modelProperty().get().tokenizer().singleTokenId(second)));

    main.toggleHead(new Head(1, 2));
    r = vm.targetRowsProperty().get(0);
    var after = main.ablatedProperty().get().predictions().get(0).top();
    var same = after.stream().filter(p -> p.token().equals(first)).findFirst().orElseThrow();
    assertThat(r.logAfter()).isCloseTo(Math.log(same.probability()), within(1e-4));
    assertThat(r.logAfter()).isNotEqualTo(r.logBefore());
    assertThat(r.logitDifferenceLine()).contains(first + " − " + second);

    vm.targetWordProperty().set("catdogfish");
    vm.follow();
    assertThat(vm.targetProblemProperty().get()).contains("single wordpiece");
    assertThat(main.session().target()).isNull();

    // the shared vocabulary check (issue 39): a word read as [UNK], and a contrast that is the target
    vm.targetWordProperty().set("猫");
    vm.follow();
    assertThat(vm.targetProblemProperty().get()).isEqualTo("'猫' is not in this model's vocabulary: it would be read as [UNK].");
    assertThat(main.session().target()).isNull();
    vm.targetWordProperty().set("cat");
    vm.contrastWordProperty().set("CAT"); // the uncased model's "cat"
    vm.follow();
    assertThat(vm.targetProblemProperty().get()).startsWith("The contrast 'CAT' is the target 'cat' itself");
    assertThat(main.session().target()).isNull();
  }

  @Test
  void theSweepChoiceAndTheSweepNameTheMetricAlike() {
    // issue 40: Predictions said "Sweep: log P(target)" while the sweep was titled "log-prob of the intact top token"
    Path tiny = TinyBert.create(2, 3, 5).writeTo(dir.resolve("tiny")).config().getParent();
    MainViewModel main = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    PredictionsViewModel vm = main.predictions();
    main.textAProperty().set("the cat sat on the [MASK] .");
    main.loadModel(tiny.toString());
    var sweep = new io.headscope.app.gui.sweep.SweepViewModel(main.session());
    assertThat(vm.metricWords(TargetMetric.Kind.LOGPROB)).isEqualTo(sweep.chosenWordsProperty().get())
        .isEqualTo("log-prob of the intact top token").doesNotContain("target");
    vm.targetWordProperty().set("cat");
    vm.follow();
    assertThat(vm.metricWords(TargetMetric.Kind.LOGPROB)).isEqualTo(sweep.chosenWordsProperty().get())
        .isEqualTo("log P(cat)");
  }
}
