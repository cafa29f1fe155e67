package io.headscope.analysis.heads;

import io.headscope.analysis.evaluation.Calibration;
import io.headscope.analysis.evaluation.Confusion;
import io.headscope.model.BertModel;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ProgressListener;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * The evidence for the classifier, as text: the labellers' agreement (the ceiling), and for the rule
 * and the learned model their held-out agreement with the consensus under grouped cross-validation.
 * {@code ClassifierEvaluationTest} prints it and holds the floors; run {@link #main} to print it alone
 * (test class path; the embedded bert-base-uncased).
 */
final class ClassifierReport {
  /** Fold assignments: the first is the one the tables show; all give the spread. */
  static final long[] SEEDS = {20261123L, 1L, 2L};

  final List<ClassifierEvaluation.Map1> maps;
  final List<ClassifierEvaluation.HeldOut> runs;

  /** Cross-validates with every seed of {@link #SEEDS}. */
  ClassifierReport(List<ClassifierEvaluation.Map1> maps) {
    this(maps, Arrays.stream(SEEDS).mapToObj(s -> ClassifierEvaluation.crossValidate(maps, s)).toList());
  }

  /** Reports runs already made (the first with seed {@code SEEDS[0]}). */
  ClassifierReport(List<ClassifierEvaluation.Map1> maps, List<ClassifierEvaluation.HeldOut> runs) {
    this.maps = maps;
    this.runs = runs;
  }

  static final Predicate<LabelledMaps.Entry> SECOND = LabelledMaps.Entry::twoLabellers;
  static final Predicate<LabelledMaps.Entry> SECOND_SURE = e -> e.twoLabellers() && !e.borderline();
  static final Predicate<LabelledMaps.Entry> FIRST = e -> !e.twoLabellers();

  ClassifierEvaluation.HeldOut first() {
    return runs.get(0);
  }

  Confusion learned(Predicate<LabelledMaps.Entry> which) {
    return ClassifierEvaluation.confusion(maps, first().learned(), which);
  }

  Confusion rule(Predicate<LabelledMaps.Entry> which) {
    return ClassifierEvaluation.confusion(maps, first().rule(), which);
  }

  Confusion labellers() {
    return ClassifierEvaluation.labellers(maps);
  }

  Confusion alwaysVertical(Predicate<LabelledMaps.Entry> which) {
    HeadPattern[] v = new HeadPattern[maps.size()];
    Arrays.fill(v, HeadPattern.VERTICAL);
    return ClassifierEvaluation.confusion(maps, v, which);
  }

  /** The shipped thresholds (tuned on the first set's even ids): the second set is wholly new to them. */
  Confusion shippedRule(Predicate<LabelledMaps.Entry> which) {
    HeadPattern[] said = maps.stream().map(m -> Thresholds.DEFAULT.decide(m.scores().vertical(), m.scores().focus(),
        m.scores().diagonal(), m.scores().block()).category()).toArray(HeadPattern[]::new);
    return ClassifierEvaluation.confusion(maps, said, which);
  }

  Calibration learnedCalibration() {
    return ClassifierEvaluation.calibration(maps, first().learned(), first().learnedConfidence(), SECOND);
  }

  Calibration ruleCalibration() {
    return ClassifierEvaluation.calibration(maps, first().rule(), first().ruleConfidence(), SECOND);
  }

  /** Mean and spread of each repetition's agreement on the two-labeller maps. */
  double[] repetitions(boolean learnedModel) {
    return runs.stream().mapToDouble(r -> ClassifierEvaluation.confusion(maps, learnedModel ? r.learned() : r.rule(),
        SECOND).agreement()).toArray();
  }

  String text() {
    StringBuilder b = new StringBuilder();
    long two = maps.stream().filter(m -> m.entry().twoLabellers()).count();
    long sure = maps.stream().filter(m -> SECOND_SURE.test(m.entry())).count();
    long disputed = maps.stream().filter(m -> m.entry().disputed()).count();
    Confusion lab = labellers();
    b.append(String.format(Locale.ROOT, "Two labellers (sets 1 and 2 labelled again, set 3): %d maps from %d inputs; "
        + "%d disputed, %d sure (both labellers sure and agreeing).%nOne labeller: %d maps from %d inputs (training and "
        + "a second check only).%n%n", two, inputs(SECOND), disputed, sure, maps.size() - two, inputs(FIRST)));
    b.append(String.format(Locale.ROOT, "LABELLERS (the ceiling): raw agreement %.3f, Cohen's kappa %.3f%n",
        lab.agreement(), lab.kappa()));
    b.append(String.format(Locale.ROOT, "%-18s %6s %6s %9s %9s%n", "category", "first", "second", "agreement", "kappa_1vR"));
    for (int k = 0; k < lab.classes(); k++) {
      b.append(String.format(Locale.ROOT, "%-18s %6d %6d %9.3f %9.3f%n", lab.names().get(k), lab.truthCount(k),
          lab.saidCount(k), lab.positiveAgreement(k), lab.kappa(k)));
    }
    b.append(lab.table("first", "second"));
    b.append(String.format(Locale.ROOT, "%nHELD OUT (grouped %d-fold cross-validation by input, fold seed %d), two-labeller "
        + "maps against the consensus:%n", ClassifierEvaluation.FOLDS, SEEDS[0]));
    b.append(String.format(Locale.ROOT, "%-34s %9s %7s %9s %9s%n", "", "agreement", "kappa", "sure maps", "1st set"));
    row(b, "learned (logistic, default)", learned(SECOND), learned(SECOND_SURE), learned(FIRST));
    row(b, "rule (thresholds tuned per fold)", rule(SECOND), rule(SECOND_SURE), rule(FIRST));
    row(b, "rule (shipped thresholds)", shippedRule(SECOND), shippedRule(SECOND_SURE), null);
    row(b, "always vertical", alwaysVertical(SECOND), alwaysVertical(SECOND_SURE), alwaysVertical(FIRST));
    b.append(String.format(Locale.ROOT, "%-34s %9.3f %7.3f%n", "labellers' own agreement", lab.agreement(), lab.kappa()));
    double[] lf = first().learnedFoldAgreement();
    double[] rf = first().ruleFoldAgreement();
    b.append(String.format(Locale.ROOT, "per fold (two-labeller maps): learned mean %.3f sd %.3f min %.3f max %.3f; "
        + "rule mean %.3f sd %.3f%n", ClassifierEvaluation.mean(lf), ClassifierEvaluation.sd(lf),
        Arrays.stream(lf).min().orElse(0), Arrays.stream(lf).max().orElse(0), ClassifierEvaluation.mean(rf),
        ClassifierEvaluation.sd(rf)));
    b.append(String.format(Locale.ROOT, "over %d fold assignment(s) (seeds %s): learned %s; rule %s%n", runs.size(),
        Arrays.toString(Arrays.copyOf(SEEDS, runs.size())), format(repetitions(true)), format(repetitions(false))));
    b.append("penalties chosen by the inner cross-validation per fold: ")
        .append(Arrays.toString(first().penalties())).append('\n');
    b.append("\nlearned, per category (two-labeller maps, held out):\n").append(ClassifierEvaluation.perCategory(learned(SECOND)));
    b.append(learned(SECOND).table("consensus", "learned"));
    b.append("learned, sure maps only:\n").append(ClassifierEvaluation.perCategory(learned(SECOND_SURE)));
    b.append("\nrule (thresholds tuned per fold), per category:\n").append(ClassifierEvaluation.perCategory(rule(SECOND)));
    b.append(rule(SECOND).table("consensus", "rule"));
    b.append("\ncalibration (two-labeller maps, held out): confidence bin, maps, agreement, mean confidence\n");
    calibration(b, "learned", learnedCalibration());
    calibration(b, "rule", ruleCalibration());
    return b.toString();
  }

  private long inputs(Predicate<LabelledMaps.Entry> which) {
    return maps.stream().map(ClassifierEvaluation.Map1::entry).filter(which).map(LabelledMaps.Entry::input).distinct().count();
  }

  private static void row(StringBuilder b, String name, Confusion all, Confusion sure, Confusion first) {
    b.append(String.format(Locale.ROOT, "%-34s %9.3f %7.3f %9.3f %9s%n", name, all.agreement(), all.kappa(),
        sure.agreement(), first == null ? "-" : String.format(Locale.ROOT, "%.3f", first.agreement())));
  }

  private static String format(double[] v) {
    return String.format(Locale.ROOT, "mean %.3f (min %.3f, max %.3f)", ClassifierEvaluation.mean(v),
        Arrays.stream(v).min().orElse(0), Arrays.stream(v).max().orElse(0));
  }

  private static void calibration(StringBuilder b, String name, Calibration c) {
    b.append(name).append(":");
    for (Calibration.Bin bin : c.bins()) {
      b.append(String.format(Locale.ROOT, "  [%.1f,%.1f) %d %s", bin.from(), bin.to(), bin.count(),
          bin.count() == 0 ? "-" : String.format(Locale.ROOT, "%.3f", bin.agreement())));
    }
    b.append('\n');
  }

  public static void main(String[] args) throws Exception {
    try (BertModel model = BertModel.load(ModelRepository.standard().resolve("bert-base-uncased", ProgressListener.NONE))) {
      long t0 = System.nanoTime();
      List<ClassifierEvaluation.Map1> maps = ClassifierEvaluation.score(model, LabelledMaps.loadAll());
      long t1 = System.nanoTime();
      ClassifierReport r = new ClassifierReport(maps);
      System.out.print(r.text());
      System.out.printf(Locale.ROOT, "(scoring %.1f s, cross-validation %.1f s)%n", (t1 - t0) / 1e9, (System.nanoTime() - t1) / 1e9);
    }
  }
}
