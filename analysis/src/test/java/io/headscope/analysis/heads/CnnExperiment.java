package io.headscope.analysis.heads;

import io.headscope.analysis.heads.cnn.CnnClassifier;
import io.headscope.model.BertModel;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ProgressListener;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Issue 32: the CNN against the logistic model in the same grouped cross-validation (the 8 folds of
 * {@link ClassifierEvaluation#folds} with {@link TrainClassifier#SEED}, whole inputs per fold), by length
 * bucket, and their average. In each outer fold the CNN's number of epochs is chosen by an inner grouped
 * cross-validation of the training folds alone ({@link CnnTraining#chooseEpochs}), then the CNN is
 * trained on all the training folds and classifies the held-out fold with the plain-Java
 * {@link CnnClassifier} (the inference the app would ship); DJL's own probabilities for the same maps
 * are compared with it as a check of the export. A main class on the test class path; prints the tables
 * of docs/CNN.md.
 */
final class CnnExperiment {
  private CnnExperiment() {}

  /** Held-out probabilities of one model, [map][class] in {@link HeadPattern} order. */
  record Probabilities(String name, double[][] p) {
    HeadPattern[] said() {
      HeadPattern[] s = new HeadPattern[p.length];
      for (int i = 0; i < p.length; i++) {
        s[i] = HeadPattern.values()[CnnTraining.argmax(p[i])];
      }
      return s;
    }

    double[] confidence() {
      double[] c = new double[p.length];
      for (int i = 0; i < p.length; i++) {
        c[i] = p[i][CnnTraining.argmax(p[i])];
      }
      return c;
    }
  }

  /** The logistic model's held-out probabilities, computed as {@link ClassifierExperiment#crossValidate} does. */
  static Probabilities logistic(List<ClassifierEvaluation.Map1> maps, long seed) {
    int n = maps.size();
    int[] fold = ClassifierEvaluation.folds(maps, ClassifierEvaluation.FOLDS, seed);
    double[][] p = new double[n][];
    List<String> names = MapFeatures.NAMES;
    for (int f = 0; f < ClassifierEvaluation.FOLDS; f++) {
      List<Integer> train = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        if (fold[i] != f) {
          train.add(i);
        }
      }
      double l2 = ClassifierExperiment.choosePenalty(maps, names, train, seed + 1000L * (f + 1));
      LogisticModel m = ClassifierExperiment.fit(maps, names, train, l2);
      for (int i = 0; i < n; i++) {
        if (fold[i] == f) {
          p[i] = m.probabilities(ClassifierExperiment.x(maps.get(i), names));
        }
      }
    }
    return new Probabilities("logistic", p);
  }

  /** The CNN's held-out probabilities; prints per fold the epochs chosen and the time taken. */
  static Probabilities cnn(List<ClassifierEvaluation.Map1> maps, float[][][][] images, long seed) {
    int n = maps.size();
    int[] fold = ClassifierEvaluation.folds(maps, ClassifierEvaluation.FOLDS, seed);
    int[] labels = maps.stream().mapToInt(m -> m.entry().label().ordinal()).toArray();
    double[][] p = new double[n][];
    double worst = 0;
    for (int f = 0; f < ClassifierEvaluation.FOLDS; f++) {
      long start = System.nanoTime();
      List<Integer> train = new ArrayList<>();
      List<Integer> held = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        (fold[i] != f ? train : held).add(i);
      }
      long innerSeed = seed + 1000L * (f + 1);
      List<ClassifierEvaluation.Map1> sub = train.stream().map(maps::get).toList();
      int[] inner = ClassifierEvaluation.folds(sub, ClassifierEvaluation.INNER_FOLDS, innerSeed);
      int epochs = CnnTraining.chooseEpochs(images, labels, train, inner, ClassifierEvaluation.INNER_FOLDS, innerSeed);
      double[][] djl;
      CnnClassifier c;
      try (CnnTraining.Run r = new CnnTraining.Run(seed, CnnTraining.FILTERS, images[0].length)) {
        java.util.Random shuffle = new java.util.Random(seed);
        for (int e = 1; e <= epochs; e++) {
          r.epoch(images, labels, train, shuffle);
        }
        djl = r.probabilities(images, held);
        c = r.classifier("fold " + f);
      }
      for (int k = 0; k < held.size(); k++) {
        int i = held.get(k);
        p[i] = c.probabilities(images[i]);
        for (int j = 0; j < p[i].length; j++) {
          worst = Math.max(worst, Math.abs(p[i][j] - djl[k][j]));
        }
      }
      System.out.printf(Locale.ROOT, "fold %d: %d training maps, %d held out, %d epochs chosen, %.0f s%n", f,
          train.size(), held.size(), epochs, (System.nanoTime() - start) / 1e9);
    }
    System.out.printf(Locale.ROOT, "largest |plain Java - DJL| held-out probability: %.2e%n", worst);
    return new Probabilities("cnn", p);
  }

  static Probabilities average(Probabilities a, Probabilities b) {
    double[][] p = new double[a.p().length][];
    for (int i = 0; i < p.length; i++) {
      p[i] = new double[a.p()[i].length];
      for (int j = 0; j < p[i].length; j++) {
        p[i][j] = (a.p()[i][j] + b.p()[i][j]) / 2;
      }
    }
    return new Probabilities("average of " + a.name() + " and " + b.name(), p);
  }

  static void report(List<ClassifierEvaluation.Map1> maps, Probabilities r) {
    HeadPattern[] said = r.said();
    double[] conf = r.confidence();
    int hits = 0;
    for (int i = 0; i < maps.size(); i++) {
      hits += said[i] == maps.get(i).entry().label() ? 1 : 0;
    }
    System.out.printf(Locale.ROOT, "%n## %s%n%nall %d maps (every set, consensus): %.3f%n%n", r.name(), maps.size(),
        hits / (double) maps.size());
    System.out.print(LengthBuckets.table(LengthBuckets.rows(maps, said, conf, 0)));
    System.out.println();
    System.out.print(LengthBuckets.recall(maps, said));
    System.out.println();
    System.out.print(LengthBuckets.calibration(maps, said, conf));
  }

  public static void main(String[] args) throws Exception {
    long t0 = System.nanoTime();
    List<ClassifierEvaluation.Map1> maps;
    float[][][][] images;
    try (BertModel model = BertModel.load(ModelRepository.standard().resolve("bert-base-uncased", ProgressListener.NONE))) {
      maps = ClassifierEvaluation.score(model, LabelledMaps.loadAll());
      images = CnnData.images(() -> model, maps);
    }
    System.out.printf(Locale.ROOT, "%d maps scored and resized in %.0f s%n", maps.size(), (System.nanoTime() - t0) / 1e9);
    CnnTraining.oneThread();
    long seed = TrainClassifier.SEED;
    Probabilities logistic = logistic(maps, seed);
    // the same held-out predictions as ClassifierExperiment's, which the tables were made with
    ClassifierExperiment.Result check = ClassifierExperiment.crossValidate(maps, MapFeatures.NAMES, i -> true, seed);
    if (!java.util.Arrays.equals(check.said(), logistic.said())) {
      throw new IllegalStateException("the logistic held-out predictions differ from ClassifierExperiment's");
    }
    long t1 = System.nanoTime();
    Probabilities cnn = cnn(maps, images, seed);
    System.out.printf(Locale.ROOT, "CNN cross-validation: %.0f s%n", (System.nanoTime() - t1) / 1e9);
    report(maps, logistic);
    report(maps, cnn);
    report(maps, average(logistic, cnn));
  }
}
