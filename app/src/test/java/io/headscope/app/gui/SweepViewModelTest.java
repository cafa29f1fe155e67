package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.app.gui.exec.DirectWorker;
import io.headscope.app.gui.exec.Worker;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.gui.sweep.SweepViewModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.analysis.ablation.AblationResult;
import io.headscope.analysis.ablation.AblationSweep;
import io.headscope.analysis.ablation.HeadImportance;
import io.headscope.analysis.ablation.TargetMetric;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Path;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SweepViewModelTest {
  @TempDir static Path dir;
  static Path tiny;

  @BeforeAll
  static void model() {
    tiny = TinyBert.create(2, 3, 21).writeTo(dir.resolve("tiny")).config().getParent();
  }

  private MainViewModel main(Worker worker) {
    MainViewModel vm = new MainViewModel(worker, new ModelRepository(dir.resolve("cache")));
    vm.textAProperty().set("the cat sat on the [MASK] .");
    vm.loadModel(tiny.toString());
    return vm;
  }

  @Test
  void theSweepCoversEveryHeadAndLayerAndAClickSelectsTheHead() {
    MainViewModel main = main(new DirectWorker());
    SweepViewModel vm = new SweepViewModel(main.session());
    vm.run();
    var r = vm.resultProperty().get();
    assertThat(r.layers()).isEqualTo(2);
    assertThat(r.heads()).isEqualTo(3);
    assertThat(r.hasLayers()).isTrue();
    assertThat(vm.runningProperty().get()).isFalse();
    // the heatmap's value is the service's delta, in the metric chosen
    assertThat(vm.value(1, 2)).isEqualTo(r.deltaLogprob(1, 2));
    vm.metricProperty().set(SweepViewModel.Metric.KL);
    assertThat(vm.value(1, 2)).isEqualTo(r.headKl()[1][2]).isGreaterThanOrEqualTo(0);
    assertThat(vm.describe(0, -1)).startsWith("layer 1 (all heads) off");
    vm.select(1, 0);
    assertThat(main.selectedProperty().get()).isEqualTo(new Head(1, 0));
    assertThat(r.mode()).isEqualTo(HeadMask.Mode.ZERO);
  }

  @Test
  void aCancelledSweepStopsAndLeavesNoResult() {
    boolean[] cancel = {false};
    // the same-thread worker, except that once asked, work sees itself cancelled at its next check
    Worker worker = new Worker() {
      @Override
      public <T> Job submit(Work<T> work, Listener<T> listener) {
        T result;
        try {
          result = work.run(new Progress() {
            @Override
            public void update(String message, double fraction) {}

            @Override
            public boolean isCancelled() {
              return cancel[0];
            }
          });
        } catch (CancellationException e) {
          listener.cancelled();
          return () -> { };
        } catch (Exception e) {
          listener.failed(e);
          return () -> { };
        }
        listener.done(result);
        return () -> { };
      }
    };
    MainViewModel main = main(worker);
    SweepViewModel vm = new SweepViewModel(main.session());
    cancel[0] = true;
    vm.run();
    assertThat(vm.resultProperty().get()).isNull();
    assertThat(vm.statusProperty().get()).contains("cancelled");
    assertThat(vm.runningProperty().get()).isFalse();
    assertThat(main.errorProperty().get()).isNull();
  }

  @Test
  void theTestWorkerCancelsASweepMidJob() {
    MainViewModel main = main(new DirectWorker());
    SweepViewModel vm = new SweepViewModel(main.session());
    double[] cancelledAt = {-1};
    vm.progressProperty().addListener((o, a, b) -> {
      if (vm.runningProperty().get() && b.doubleValue() > 0 && b.doubleValue() < 1 && cancelledAt[0] < 0) {
        cancelledAt[0] = b.doubleValue();
        vm.cancel();
      }
    });
    vm.run();
    assertThat(cancelledAt[0]).as("cancelled between two steps of the sweep").isBetween(0.0, 1.0);
    assertThat(vm.statusProperty().get()).contains("cancelled").contains("partial, 1 of 2 layers");
    assertThat(vm.runningProperty().get()).isFalse();
    assertThat(main.errorProperty().get()).isNull();
    // what was swept is kept, equal to a full sweep's numbers for the same heads; the rest is blank
    assertThat(vm.partialProperty().get()).isTrue();
    AblationResult full = new AblationSweep(main.modelProperty().get()).run(main.traceProperty().get().encoding(),
        new AblationSweep.Options(HeadMask.Mode.ZERO, true, 0));
    for (int h = 0; h < 3; h++) {
      assertThat(vm.value(0, h)).isEqualTo(full.deltaLogprob(0, h));
      assertThat(vm.value(1, h)).isNaN();
    }
    assertThat(vm.value(0, -1)).isEqualTo(full.layerDeltaLogprob(0));
    assertThat(vm.captionProperty().get()).contains("Partial");
  }

  /** Follows cat vs dog under Predictions with the given "Sweep:" choice, as the panel does. */
  private static TargetMetric follow(MainViewModel main, String target, String contrast, TargetMetric.Kind kind) {
    main.predictions().metricProperty().set(kind);
    main.predictions().targetWordProperty().set(target);
    main.predictions().contrastWordProperty().set(contrast);
    main.predictions().follow();
    return main.session().target();
  }

  /** The analysis service run directly, the target built here from the tokenizer (not from the session). */
  private static AblationResult direct(MainViewModel main, TargetMetric.Kind kind, String target, String contrast) {
    var m = main.modelProperty().get();
    var options = new AblationSweep.Options(HeadMask.Mode.ZERO, true, 0);
    if (kind != null) {
      options = options.following(new TargetMetric(kind, m.tokenizer().singleTokenId(target),
          contrast == null ? -1 : m.tokenizer().singleTokenId(contrast)));
    }
    return new AblationSweep(m).run(main.traceProperty().get().encoding(), options);
  }

  private static void assertSameCells(SweepViewModel vm, AblationResult expected) {
    for (int l = 0; l < expected.layers(); l++) {
      for (int h = 0; h < expected.heads(); h++) {
        assertThat(vm.value(l, h)).as("head %d-%d", l, h).isEqualTo(expected.deltaLogprob(l, h));
      }
      assertThat(vm.value(l, -1)).as("layer %d", l).isEqualTo(expected.layerDeltaLogprob(l));
    }
  }

  // Would catch issue 31: "Sweep: logit difference" chosen under Predictions while the Sweep screen's own
  // list still said "intact top token", so one run measured the top token's log-prob.
  @Test
  void oneRunMeasuresTheLogitDifferenceChosenUnderPredictionsAndTheTitleSaysSo() {
    MainViewModel main = main(new DirectWorker());
    SweepViewModel vm = new SweepViewModel(main.session());
    assertThat(vm.chosenWordsProperty().get()).isEqualTo("log-prob of the intact top token");
    follow(main, "cat", "dog", TargetMetric.Kind.LOGIT_DIFF);
    assertThat(vm.chosenWordsProperty().get()).isEqualTo("logit cat − dog");
    vm.run();
    AblationResult expected = direct(main, TargetMetric.Kind.LOGIT_DIFF, "cat", "dog");
    assertThat(vm.resultProperty().get().metric()).isEqualTo("logit_diff");
    assertSameCells(vm, expected);
    assertThat(expected.deltaLogprob(1, 2))
        .as("the default measure differs, so the check can fail")
        .isNotEqualTo(direct(main, null, null, null).deltaLogprob(1, 2));
    assertThat(vm.titleProperty().get()).contains("logit cat − dog").contains("target cat").contains("contrast dog")
        .contains("zero");
    assertThat(vm.captionProperty().get()).contains("logit cat − dog").contains("zero (× 0)");
    assertThat(vm.describe(1, 2)).contains("Δ logit cat − dog");
    assertThat(vm.staleProperty().get()).isFalse();
    assertThat(vm.figure().title()).contains("logit cat − dog");
    // the notes say what the top-1 share counts (no bare "accuracy 0%" for a contrast), and each whole layer is
    // a cell of its own with its value
    String caption = vm.figure().caption();
    assertThat(caption).contains("“cat” is the most probable token at").doesNotContain("accuracy");
    String svg = io.headscope.app.render.figure.FigureFile.svg(vm.figure());
    assertThat(svg).contains(">layer off<").doesNotContain("(layer off");
    for (int l = 0; l < expected.layers(); l++) {
      assertThat(svg).contains(">" + String.format(java.util.Locale.ROOT, "%.2f", expected.layerDeltaLogprob(l)) + "<");
    }
    // another column of the same run: the title still names the measure computed
    vm.metricProperty().set(SweepViewModel.Metric.ACCURACY);
    assertThat(vm.titleProperty().get()).contains("logit cat − dog").contains("shown: Δ accuracy");
    assertThat(vm.staleProperty().get()).isFalse();
  }

  // Would catch old numbers shown silently under a new label after the metric, the word or the contrast
  // changed, and a rerun that left the mark on.
  @Test
  void aNewMetricWordOrContrastAfterARunMarksTheResultStaleUntilItIsRerun() {
    MainViewModel main = main(new DirectWorker());
    SweepViewModel vm = new SweepViewModel(main.session());
    follow(main, "cat", "dog", TargetMetric.Kind.LOGIT_DIFF);
    vm.run();
    assertThat(vm.staleProperty().get()).isFalse();

    main.predictions().metricProperty().set(TargetMetric.Kind.PROB); // the panel shares it at once
    assertThat(vm.staleProperty().get()).isTrue();
    assertThat(vm.staleReasonProperty().get()).contains("logit cat − dog").contains("P(cat) − P(dog)");
    // the title still names what the numbers are, not the new choice
    assertThat(vm.titleProperty().get()).contains("logit cat − dog");
    vm.run();
    assertThat(vm.staleProperty().get()).isFalse();
    assertThat(vm.staleReasonProperty().get()).isEmpty();
    assertThat(vm.titleProperty().get()).contains("P(cat) − P(dog)");
    assertSameCells(vm, direct(main, TargetMetric.Kind.PROB, "cat", "dog"));

    follow(main, "cat", "sat", TargetMetric.Kind.PROB); // another contrast
    assertThat(vm.staleProperty().get()).isTrue();
    vm.run();
    assertThat(vm.staleProperty().get()).isFalse();
    assertThat(vm.titleProperty().get()).contains("contrast sat");

    follow(main, "", "", TargetMetric.Kind.PROB); // no word followed: the intact top token
    assertThat(vm.staleProperty().get()).isTrue();
    assertThat(vm.staleReasonProperty().get()).contains("log-prob of the intact top token");
    vm.run();
    assertThat(vm.staleProperty().get()).isFalse();
    assertThat(vm.resultProperty().get().metric()).isEqualTo("logprob");
    assertSameCells(vm, direct(main, null, null, null));
    assertThat(vm.titleProperty().get()).contains("log-prob of the intact top token").doesNotContain("target");

    main.setMode(HeadMask.Mode.UNIFORM);
    assertThat(vm.staleProperty().get()).as("another switch-off mode").isTrue();
  }

  // Issue 40: Predictions said "Sweep: log P(target)" over a sweep titled "Δ logit she − he", and the status line
  // said a bare "accuracy 0%". The panel's choice now reads as the sweep names it, with the words typed, and
  // the status says what the top-1 share counts; a figure cell never prints -0.00.
  @Test
  void thePredictionsChoiceAndTheSweepNameTheMetricAlikeAndTheStatusSaysWhatTheShareCounts() {
    MainViewModel main = main(new DirectWorker());
    SweepViewModel vm = new SweepViewModel(main.session());
    var p = main.predictions();
    follow(main, "cat", "", TargetMetric.Kind.LOGPROB);
    assertThat(p.metricsOffered()).containsExactly(TargetMetric.Kind.LOGPROB, TargetMetric.Kind.PROB);
    assertThat(p.metricWords(p.metricProperty().get())).isEqualTo(vm.chosenWordsProperty().get()).isEqualTo("log P(cat)");
    // a contrast typed: log P(cat) - log P(dog) is the logit difference, offered once under that name
    follow(main, "cat", "dog", TargetMetric.Kind.LOGPROB);
    p.contrastWordProperty().set("dog");
    assertThat(p.metricsOffered()).containsExactly(TargetMetric.Kind.LOGIT_DIFF, TargetMetric.Kind.PROB);
    assertThat(p.metricWords(p.metricProperty().get())).isEqualTo(vm.chosenWordsProperty().get())
        .isEqualTo("logit cat − dog");
    p.metricProperty().set(TargetMetric.Kind.PROB);
    assertThat(p.metricWords(TargetMetric.Kind.PROB)).isEqualTo(vm.chosenWordsProperty().get()).isEqualTo("P(cat) − P(dog)");
    p.metricProperty().set(TargetMetric.Kind.LOGIT_DIFF);
    vm.run();
    assertThat(vm.titleProperty().get()).contains(p.metricWords(p.metricProperty().get()));
    assertThat(vm.statusProperty().get()).contains("“cat” is the most probable token at").doesNotContain("accuracy");
    // the contrast cleared: back to log P of the target, the same first choice
    p.contrastWordProperty().set("");
    assertThat(p.metricProperty().get()).isEqualTo(TargetMetric.Kind.LOGPROB);
    assertThat(io.headscope.app.render.figure.MatrixFigure.twoDecimals(-0.004)).isEqualTo("0.00");
    assertThat(io.headscope.app.render.figure.MatrixFigure.twoDecimals(-0.006)).isEqualTo("-0.01");
  }

  // Would catch "Sweep: logit difference" with no contrast silently sweeping something else unnamed.
  @Test
  void aLogitDifferenceWithoutAContrastSaysWhatTheSweepMeasuresInstead() {
    MainViewModel main = main(new DirectWorker());
    SweepViewModel vm = new SweepViewModel(main.session());
    follow(main, "cat", "", TargetMetric.Kind.LOGIT_DIFF);
    assertThat(main.predictions().targetProblemProperty().get()).contains("needs a contrast").contains("log P(cat)");
    assertThat(vm.chosenWordsProperty().get()).isEqualTo("log P(cat)");
    vm.run();
    assertThat(vm.titleProperty().get()).contains("Δ log P(cat)").contains("target cat").doesNotContain("contrast");
    assertSameCells(vm, direct(main, TargetMetric.Kind.LOGPROB, "cat", null));
  }

  // Would catch a sidecar that names the current choice (or nothing) rather than what the CSV holds.
  @Test
  void theCsvAndItsSidecarNameTheMetricActuallyComputedEvenWhenStale() throws Exception {
    MainViewModel main = main(new DirectWorker());
    SweepViewModel vm = new SweepViewModel(main.session());
    follow(main, "cat", "dog", TargetMetric.Kind.LOGIT_DIFF);
    vm.run();
    follow(main, "cat", "", TargetMetric.Kind.PROB);
    assertThat(vm.staleProperty().get()).isTrue();

    Path csv = dir.resolve("target.csv");
    SweepViewModel.writeCsv(vm.csv(), csv);
    assertThat(java.nio.file.Files.readAllLines(csv).get(0)).contains("delta_logit_diff");
    var json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(dir.resolve("target.csv.json").toFile());
    assertThat(json.get("text").asText()).isEqualTo("the cat sat on the [MASK] .");
    assertThat(json.get("metric").asText()).isEqualTo("logit_diff");
    assertThat(json.get("target").asText()).isEqualTo("cat");
    assertThat(json.get("contrast").asText()).isEqualTo("dog");
    assertThat(json.get("mode").asText()).isEqualTo("zero");
    assertThat(json.get("partial").asBoolean()).isFalse();

    vm.run();
    SweepViewModel.writeCsv(vm.csv(), csv);
    json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(dir.resolve("target.csv.json").toFile());
    assertThat(json.get("metric").asText()).isEqualTo("prob");
    assertThat(json.get("target").asText()).isEqualTo("cat");
    assertThat(json.get("contrast").isNull()).isTrue();
  }

  @Test
  void gradientImportanceIsASecondMetricFromTheSameServiceAsTheCommand() {
    MainViewModel main = main(new DirectWorker());
    SweepViewModel vm = new SweepViewModel(main.session());
    vm.metricProperty().set(SweepViewModel.Metric.IMPORTANCE);
    vm.run();
    var expected = new HeadImportance(main.modelProperty().get()).run(main.traceProperty().get().encoding(), 0);
    assertThat(vm.value(1, 1)).isEqualTo(expected.normalized()[1][1]);
    assertThat(vm.value(1, -1)).isNaN();
    assertThat(vm.signed()).isFalse();
    assertThat(vm.captionProperty().get()).contains("Michel");
  }

  @Test
  void theDefaultMeasureIsNamedByWhatIsProbedOnEachFamilyAndInput() {
    // issue 40's walk-through on GPT-2: "the intact top token is the most probable token at 0%" named a measure
    // the sweep did not take (it scores a 15% sample of the text's own next tokens)
    MainViewModel main = main(new DirectWorker());
    SweepViewModel vm = new SweepViewModel(main.session());
    assertThat(vm.chosenWordsProperty().get()).isEqualTo(TargetMetric.INTACT_TOP_WORDS);
    main.textAProperty().set("the cat sat on the mat .");
    main.analyse();
    assertThat(vm.chosenWordsProperty().get()).isEqualTo(TargetMetric.SAMPLED_WORDS);
    assertThat(main.predictions().metricWords(TargetMetric.Kind.LOGPROB)).isEqualTo(TargetMetric.SAMPLED_WORDS);

    Path gpt2 = dir.resolve("gpt2");
    io.headscope.model.testing.families.FamilyModelFolders.write("gpt2", gpt2, 3);
    main.textAProperty().set("the cat sat on the mat and the dog sat on the rug");
    main.loadModel(gpt2.toString());
    assertThat(vm.chosenWordsProperty().get()).isEqualTo(TargetMetric.NEXT_WORDS);
    assertThat(main.predictions().metricWords(TargetMetric.Kind.LOGPROB)).isEqualTo(TargetMetric.NEXT_WORDS);
    vm.run();
    var r = vm.resultProperty().get();
    assertThat(r).as(vm.statusProperty().get()).isNotNull();
    assertThat(vm.titleProperty().get()).contains(TargetMetric.NEXT_WORDS).doesNotContain("intact top token");
    assertThat(vm.statusProperty().get()).contains(String.format(java.util.Locale.ROOT,
        "the text's own next token is the most probable token at %.0f%% of them", 100 * r.baselineAccuracy()));
    vm.metricProperty().set(SweepViewModel.Metric.ACCURACY);
    assertThat(vm.captionProperty().get()).contains("where the text's own next token is the top token");
  }
}
