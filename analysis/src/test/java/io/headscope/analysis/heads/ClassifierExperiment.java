package io.headscope.analysis.heads;

import io.headscope.model.BertModel;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ProgressListener;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * Feature sets and training sets for the learned classifier compared in one grouped cross-validation
 * (the folds of {@link ClassifierEvaluation#folds}), by length bucket: how the choice in METHODS.md was
 * made. A main class on the test class path; prints the tables.
 */
final class ClassifierExperiment {
  private ClassifierExperiment() {}

  /** The features before issue 32, with the length they used as a feature. */
  static final List<String> BEFORE = List.of("vertical", "vertical_focus", "diagonal", "block", "entropy_ratio",
      "previous", "next", "self", "cls", "sep", "punct", "argmax_in_top_columns", "argmax_in_band", "top_column_mean",
      "second_column_mean", "pair", "log_length");

  static double feature(ClassifierEvaluation.Map1 m, String name) {
    if (name.equals("log_length")) {
      return Math.log(m.tokens());
    }
    if (name.startsWith("min:")) {
      String[] p = name.substring(4).split(",");
      return Math.min(feature(m, p[0]), feature(m, p[1]));
    }
    if (name.startsWith("x:")) {
      String[] p = name.substring(2).split(",");
      return feature(m, p[0]) * feature(m, p[1]);
    }
    return m.features().values()[MapFeatures.NAMES.indexOf(name)];
  }

  static double[] x(ClassifierEvaluation.Map1 m, List<String> names) {
    return names.stream().mapToDouble(n -> feature(m, n)).toArray();
  }

  /** Held-out predictions of a logistic model on {@code names}, trained only on maps {@code trainOn} keeps. */
  record Result(HeadPattern[] said, double[] confidence) {}

  static Result crossValidate(List<ClassifierEvaluation.Map1> maps, List<String> names, IntPredicate trainOn, long seed) {
    int n = maps.size();
    int[] fold = ClassifierEvaluation.folds(maps, ClassifierEvaluation.FOLDS, seed);
    HeadPattern[] said = new HeadPattern[n];
    double[] conf = new double[n];
    for (int f = 0; f < ClassifierEvaluation.FOLDS; f++) {
      List<Integer> train = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        if (fold[i] != f && trainOn.test(i)) {
          train.add(i);
        }
      }
      double l2 = System.getProperty("l2") != null ? Double.parseDouble(System.getProperty("l2"))
          : choosePenalty(maps, names, train, seed + 1000L * (f + 1));
      LogisticModel m = fit(maps, names, train, l2);
      for (int i = 0; i < n; i++) {
        if (fold[i] == f) {
          double[] p = m.probabilities(x(maps.get(i), names));
          int best = LogisticModel.argmax(p);
          said[i] = HeadPattern.values()[best];
          conf[i] = p[best];
        }
      }
    }
    return new Result(said, conf);
  }

  static LogisticModel fit(List<ClassifierEvaluation.Map1> maps, List<String> names, List<Integer> train, double l2) {
    double[][] x = train.stream().map(i -> x(maps.get(i), names)).toArray(double[][]::new);
    int[] y = train.stream().mapToInt(i -> maps.get(i).entry().label().ordinal()).toArray();
    return Boolean.getBoolean("balanced")
        ? LogisticTrainer.fit(names, ClassifierEvaluation.CLASSES, x, y,
            LogisticTrainer.balanced(y, ClassifierEvaluation.CLASSES.size()), l2, "experiment")
        : LogisticTrainer.fit(names, ClassifierEvaluation.CLASSES, x, y, l2, "experiment");
  }

  static double choosePenalty(List<ClassifierEvaluation.Map1> maps, List<String> names, List<Integer> train, long seed) {
    List<ClassifierEvaluation.Map1> sub = train.stream().map(maps::get).toList();
    int[] fold = ClassifierEvaluation.folds(sub, ClassifierEvaluation.INNER_FOLDS, seed);
    double best = ClassifierEvaluation.PENALTIES[0];
    int bestHits = -1;
    for (double l2 : ClassifierEvaluation.PENALTIES) {
      int hits = 0;
      for (int f = 0; f < ClassifierEvaluation.INNER_FOLDS; f++) {
        List<Integer> tr = new ArrayList<>();
        for (int k = 0; k < sub.size(); k++) {
          if (fold[k] != f) {
            tr.add(train.get(k));
          }
        }
        LogisticModel m = fit(maps, names, tr, l2);
        for (int k = 0; k < sub.size(); k++) {
          if (fold[k] == f && LogisticModel.argmax(m.probabilities(x(sub.get(k), names))) == sub.get(k).entry().label().ordinal()) {
            hits++;
          }
        }
      }
      if (hits > bestHits) {
        bestHits = hits;
        best = l2;
      }
    }
    return best;
  }

  static void report(String title, List<ClassifierEvaluation.Map1> maps, Result r) {
    System.out.println("\n## " + title);
    System.out.print(LengthBuckets.table(LengthBuckets.rows(maps, r.said(), r.confidence(), 0)));
    System.out.print(LengthBuckets.recall(maps, r.said()));
    System.out.print(LengthBuckets.calibration(maps, r.said(), r.confidence()));
  }

  public static void main(String[] args) throws Exception {
    List<ClassifierEvaluation.Map1> maps;
    try (BertModel model = BertModel.load(ModelRepository.standard().resolve("bert-base-uncased", ProgressListener.NONE))) {
      maps = ClassifierEvaluation.score(model, LabelledMaps.loadAll());
    }
    long seed = Long.getLong("seed", TrainClassifier.SEED);
    IntPredicate all = i -> true;
    IntPredicate short12 = i -> maps.get(i).entry().set() < 3;
    String which = args.length > 0 ? args[0] : "all";
    if (which.equals("all") || which.equals("history")) {
      report("before: old features, trained on sets 1-2", maps, crossValidate(maps, BEFORE, short12, seed));
      report("old features, trained on sets 1-3", maps, crossValidate(maps, BEFORE, all, seed));
      List<String> noLength = BEFORE.subList(0, BEFORE.size() - 1);
      report("old features without the length, sets 1-3", maps, crossValidate(maps, noLength, all, seed));
      report("new features (MapFeatures.NAMES), sets 1-2", maps, crossValidate(maps, MapFeatures.NAMES, short12, seed));
    }
    report("new features (MapFeatures.NAMES), sets 1-3", maps, crossValidate(maps, MapFeatures.NAMES, all, seed));
    if (which.equals("first-labels")) {
      // trained on the labels sets 1 and 2 had before they were labelled again, scored against the new ones
      List<ClassifierEvaluation.Map1> before;
      try (BertModel model = BertModel.load(ModelRepository.standard().resolve("bert-base-uncased", ProgressListener.NONE))) {
        before = ClassifierEvaluation.score(model, LabelledMaps.loadAllFirstLabels());
      }
      report("trained on the first labels, scored against the first labels", before, crossValidate(before, MapFeatures.NAMES, all, seed));
      report("trained on the first labels, scored against the labels given again", maps,
          crossValidate(before, MapFeatures.NAMES, all, seed));
    }
    if (which.equals("pooled")) {
      // the fold assignments of ClassifierReport.SEEDS, each map held out once per assignment, pooled
      List<ClassifierEvaluation.Map1> pooled = new ArrayList<>();
      List<HeadPattern> said = new ArrayList<>();
      List<Double> conf = new ArrayList<>();
      for (long s : ClassifierReport.SEEDS) {
        ClassifierEvaluation.HeldOut h = ClassifierEvaluation.crossValidate(maps, s);
        pooled.addAll(maps);
        said.addAll(java.util.Arrays.asList(h.learned()));
        for (double c : h.learnedConfidence()) {
          conf.add(c);
        }
        System.out.println("\n## seed " + s);
        System.out.print(LengthBuckets.calibration(maps, h.learned(), h.learnedConfidence()));
      }
      System.out.println("\n## pooled over " + ClassifierReport.SEEDS.length + " fold assignments");
      System.out.print(LengthBuckets.calibration(pooled, said.toArray(HeadPattern[]::new),
          conf.stream().mapToDouble(Double::doubleValue).toArray()));
    }
    for (int k = 1; k < args.length; k++) {
      List<String> names = new ArrayList<>(MapFeatures.NAMES);
      names.addAll(List.of(args[k].split(";")));
      report("new features + " + args[k], maps, crossValidate(maps, names, all, seed));
    }
  }
}
