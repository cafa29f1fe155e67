package io.headscope.analysis.heads;

import io.headscope.analysis.evaluation.Calibration;
import io.headscope.analysis.evaluation.Confusion;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.Predicate;

/**
 * Grouped k-fold cross-validation of both classifiers against the hand labels (issue 14): folds are
 * made of whole inputs, so a held-out map never shares its sentence with a map that trained or tuned
 * anything. In each fold the rule's thresholds are searched ({@link ThresholdSearch}) and the logistic
 * model is trained ({@link LogisticTrainer}, its penalty chosen by an inner grouped cross-validation on
 * the training folds alone) on the other folds; the fold's maps are then classified. Every map is held
 * out exactly once per repetition.
 */
final class ClassifierEvaluation {
  static final int FOLDS = 8;
  static final int INNER_FOLDS = 4;
  static final double[] PENALTIES = {1e-3, 3e-3, 1e-2, 3e-2};
  static final List<String> CLASSES = Arrays.stream(HeadPattern.values()).map(HeadPattern::label).toList();
  /** Confidence bins for the calibration table. */
  static final double[] BIN_EDGES = {0.5, 0.6, 0.7, 0.8, 0.9};

  /** A labelled map with everything either classifier reads, and its length in tokens. */
  record Map1(LabelledMaps.Entry entry, ThresholdSearch.Scored scores, MapFeatures features, int tokens) {
    String bucket() {
      return ClassifierEvaluation.bucket(tokens);
    }
  }

  /** The length buckets: sentences, paragraphs of the first two sets, long inputs. */
  static final List<String> BUCKETS = List.of("<=32", "33-128", "129-512");

  static String bucket(int tokens) {
    return tokens <= 32 ? "<=32" : tokens <= 128 ? "33-128" : "129-512";
  }

  /**
   * One repetition's held-out predictions, in the order of the maps.
   *
   * @param foldAgreement per fold, the agreement on its maps of the second set (two labellers)
   */
  record HeldOut(HeadPattern[] rule, HeadPattern[] learned, double[] ruleConfidence, double[] learnedConfidence,
      double[] ruleFoldAgreement, double[] learnedFoldAgreement, double[] penalties) {}

  private ClassifierEvaluation() {}

  /** Scores every labelled map (one forward pass per input). */
  static List<Map1> score(BertModel model, LabelledMaps labels) {
    Map<String, AttentionTrace> traces = new HashMap<>();
    HeadClassifier rule = new HeadClassifier(HeadClassifier.Method.RULE);
    List<Map1> out = new ArrayList<>();
    for (LabelledMaps.Entry e : labels.entries()) {
      AttentionTrace t = traces.computeIfAbsent(e.input(), k -> model.trace(model.encode(e.a(), e.b())));
      HeadClassifier.Analysed a = rule.analyse(t, new Head(e.layer(), e.head()));
      HeadScore s = a.score();
      out.add(new Map1(e, new ThresholdSearch.Scored(e, s.vertical(), s.verticalFocus(), s.diagonal(), s.block()),
          a.features(), t.tokens().size()));
    }
    return out;
  }

  /** Each map's fold: the distinct inputs shuffled with {@code seed}, then dealt round-robin. */
  static int[] folds(List<Map1> maps, int k, long seed) {
    List<String> inputs = new ArrayList<>(new LinkedHashMap<String, Boolean>() {
      {
        maps.forEach(m -> put(m.entry().input(), true));
      }
    }.keySet());
    Collections.shuffle(inputs, new Random(seed));
    Map<String, Integer> fold = new HashMap<>();
    for (int i = 0; i < inputs.size(); i++) {
      fold.put(inputs.get(i), i % k);
    }
    return maps.stream().mapToInt(m -> fold.get(m.entry().input())).toArray();
  }

  static HeldOut crossValidate(List<Map1> maps, long seed) {
    int n = maps.size();
    int[] fold = folds(maps, FOLDS, seed);
    HeadPattern[] rule = new HeadPattern[n];
    HeadPattern[] learned = new HeadPattern[n];
    double[] ruleConf = new double[n];
    double[] learnedConf = new double[n];
    double[] ruleFold = new double[FOLDS];
    double[] learnedFold = new double[FOLDS];
    double[] penalties = new double[FOLDS];
    for (int f = 0; f < FOLDS; f++) {
      final int held = f;
      List<Map1> train = pick(maps, fold, i -> fold[i] != held);
      Thresholds t = ThresholdSearch.best(train.stream().map(Map1::scores).toList());
      double l2 = choosePenalty(train, seed + 1000L * (f + 1));
      penalties[f] = l2;
      LearnedRule model = new LearnedRule(fit(train, l2));
      int maps2 = 0;
      int ruleHits = 0;
      int learnedHits = 0;
      for (int i = 0; i < n; i++) {
        if (fold[i] != held) {
          continue;
        }
        Map1 m = maps.get(i);
        Thresholds.Decision r = t.decide(m.scores().vertical(), m.scores().focus(), m.scores().diagonal(), m.scores().block());
        Thresholds.Decision l = model.decide(m.features());
        rule[i] = r.category();
        ruleConf[i] = r.confidence();
        learned[i] = l.category();
        learnedConf[i] = l.confidence();
        if (m.entry().twoLabellers()) {
          maps2++;
          ruleHits += r.category() == m.entry().label() ? 1 : 0;
          learnedHits += l.category() == m.entry().label() ? 1 : 0;
        }
      }
      ruleFold[f] = ruleHits / (double) maps2;
      learnedFold[f] = learnedHits / (double) maps2;
    }
    return new HeldOut(rule, learned, ruleConf, learnedConf, ruleFold, learnedFold, penalties);
  }

  /** The penalty with the best agreement over an inner grouped cross-validation of {@code train}. */
  static double choosePenalty(List<Map1> train, long seed) {
    int[] fold = folds(train, INNER_FOLDS, seed);
    double best = PENALTIES[0];
    double bestScore = -1;
    for (double l2 : PENALTIES) {
      int hits = 0;
      for (int f = 0; f < INNER_FOLDS; f++) {
        final int held = f;
        LearnedRule m = new LearnedRule(fit(pick(train, fold, i -> fold[i] != held), l2));
        for (int i = 0; i < train.size(); i++) {
          if (fold[i] == held && m.decide(train.get(i).features()).category() == train.get(i).entry().label()) {
            hits++;
          }
        }
      }
      if (hits > bestScore) {
        bestScore = hits;
        best = l2;
      }
    }
    return best;
  }

  static LogisticModel fit(List<Map1> train, double l2) {
    double[][] x = train.stream().map(m -> m.features().values()).toArray(double[][]::new);
    int[] y = train.stream().mapToInt(m -> m.entry().label().ordinal()).toArray();
    return LogisticTrainer.fit(MapFeatures.NAMES, CLASSES, x, y, l2,
        train.size() + " hand-labelled maps (labels/README.md)");
  }

  private static List<Map1> pick(List<Map1> maps, int[] fold, java.util.function.IntPredicate keep) {
    List<Map1> out = new ArrayList<>();
    for (int i = 0; i < maps.size(); i++) {
      if (keep.test(i)) {
        out.add(maps.get(i));
      }
    }
    return out;
  }

  /** The confusion of {@code said} against the consensus on the maps {@code which} selects. */
  static Confusion confusion(List<Map1> maps, HeadPattern[] said, Predicate<LabelledMaps.Entry> which) {
    List<Integer> truth = new ArrayList<>();
    List<Integer> got = new ArrayList<>();
    for (int i = 0; i < maps.size(); i++) {
      if (which.test(maps.get(i).entry())) {
        truth.add(maps.get(i).entry().label().ordinal());
        got.add(said[i].ordinal());
      }
    }
    return Confusion.of(CLASSES, truth.stream().mapToInt(Integer::intValue).toArray(),
        got.stream().mapToInt(Integer::intValue).toArray());
  }

  /** The two labellers against each other on the second set: the ceiling. */
  static Confusion labellers(List<Map1> maps) {
    List<LabelledMaps.Entry> two = maps.stream().map(Map1::entry).filter(LabelledMaps.Entry::twoLabellers).toList();
    return Confusion.of(CLASSES, two.stream().mapToInt(e -> e.first().ordinal()).toArray(),
        two.stream().mapToInt(e -> e.second().ordinal()).toArray());
  }

  static Calibration calibration(List<Map1> maps, HeadPattern[] said, double[] confidence,
      Predicate<LabelledMaps.Entry> which) {
    return calibration(maps, said, confidence, which, BIN_EDGES);
  }

  /** The same with the given inner bin edges. */
  static Calibration calibration(List<Map1> maps, HeadPattern[] said, double[] confidence,
      Predicate<LabelledMaps.Entry> which, double[] edges) {
    List<Double> c = new ArrayList<>();
    List<Boolean> ok = new ArrayList<>();
    for (int i = 0; i < maps.size(); i++) {
      if (which.test(maps.get(i).entry())) {
        c.add(confidence[i]);
        ok.add(said[i] == maps.get(i).entry().label());
      }
    }
    boolean[] right = new boolean[ok.size()];
    for (int i = 0; i < right.length; i++) {
      right[i] = ok.get(i);
    }
    return Calibration.of(c.stream().mapToDouble(Double::doubleValue).toArray(), right, edges);
  }

  /** Per category: count, precision, recall (held-out against the consensus). */
  static String perCategory(Confusion c) {
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%-18s %6s %9s %6s %9s%n", "category", "maps",
        "precision", "recall", "kappa_1vR"));
    for (int k = 0; k < c.classes(); k++) {
      b.append(String.format(Locale.ROOT, "%-18s %6d %9.3f %6.3f %9.3f%n", c.names().get(k), c.truthCount(k),
          c.precision(k), c.recall(k), c.kappa(k)));
    }
    return b.toString();
  }

  static double mean(double[] v) {
    return Arrays.stream(v).average().orElse(Double.NaN);
  }

  static double sd(double[] v) {
    double m = mean(v);
    return Math.sqrt(Arrays.stream(v).map(x -> (x - m) * (x - m)).sum() / Math.max(1, v.length - 1));
  }
}
