package io.headscope.analysis.linguistics.probes;

import io.headscope.model.core.HeadScopeException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * Both probes, trained on TRAIN's features and scored on the treebank's. One seed drives every
 * random choice: {@code new SplittableRandom(seed)} is split, in this order, into the generators of
 * the head-selection probe's held-out split, TRAIN's edge samples, the treebank's edge samples and the
 * edge probe's held-out split; sentences are taken in file order.
 */
public final class Probes {
  private Probes() {}

  /** The L2 strengths tried on held-out TRAIN sentences, weakest first. */
  public static double[] l2Grid() {
    return L2Search.GRID.clone();
  }

  /**
   * @param trainName TRAIN's name, for messages
   * @throws HeadScopeException when TRAIN has fewer than two sentences a probe can use
   */
  public static List<ProbeResult> run(String trainName, List<PairAttention> train, List<PairAttention> test,
      long seed) {
    return run(trainName, train, test, seed, () -> false);
  }

  /**
   * As above; training polls {@code cancelled}.
   *
   * @throws java.util.concurrent.CancellationException when it turns true
   */
  public static List<ProbeResult> run(String trainName, List<PairAttention> train, List<PairAttention> test,
      long seed, BooleanSupplier cancelled) {
    SplittableRandom root = new SplittableRandom(seed);
    SplittableRandom headSplit = root.split();
    SplittableRandom trainPairs = root.split();
    SplittableRandom testPairs = root.split();
    SplittableRandom edgeSplit = root.split();

    HeadSelectionProbe heads = new HeadSelectionProbe(cancelled);
    List<PairAttention> headTest = usable(test, HeadSelectionProbe::usable);
    List<ProbeResult> out = new ArrayList<>();
    out.add(fit(ProbeResult.HEAD_SELECTION, heads, trainName, usable(train, HeadSelectionProbe::usable), headTest,
        train.size(), test.size(), headSplit, seed, w -> heads.evaluate(w, headTest, false).accuracy()));
    out.add(fit(ProbeResult.EDGE, new EdgeProbe(cancelled), trainName, samples(train, trainPairs),
        samples(test, testPairs), train.size(), test.size(), edgeSplit, seed, w -> Double.NaN));
    return out;
  }

  /**
   * What can be known of a training treebank before the model runs: both probes hold sentences out to
   * choose their penalty, so they need at least two sentences of two words or more (the model may still
   * find fewer usable, when sentences are longer than it takes).
   */
  public static void requireTrainable(io.headscope.analysis.linguistics.Treebank train) {
    long candidates = train.sentences().stream().filter(s -> s.words().size() >= 2).count();
    if (candidates < 2) {
      throw new HeadScopeException("The probe training treebank " + train.name() + " has " + candidates
          + " sentence(s) of two words or more; the probes need at least 2 (one to hold out for the L2 choice).");
    }
  }

  private static <D> ProbeResult fit(String name, Probe<D> probe, String trainName, List<D> train, List<D> test,
      int trainAll, int testAll, SplittableRandom split, long seed, ToDoubleFunction<Weights> withoutRoots) {
    if (train.size() < 2) {
      throw new HeadScopeException("The probe training treebank " + trainName + " has " + train.size()
          + " sentence(s) the " + name + " probe can use; it needs at least 2 (one to hold out for the L2 choice).");
    }
    L2Search.Choice c = L2Search.choose(probe, train, split);
    Weights w = probe.fit(train, c.l2(), c.theta()).weights();
    Probe.Score s = test.isEmpty() ? new Probe.Score(0, 0) : probe.evaluate(w, test);
    return new ProbeResult(name, train.size(), trainAll - train.size(), test.size(), testAll - test.size(), s.items(),
        s.accuracy(), test.isEmpty() ? Double.NaN : withoutRoots.applyAsDouble(w), c.l2(), c.heldOutAccuracy(), seed,
        w);
  }

  private static List<PairAttention> usable(List<PairAttention> all, Predicate<PairAttention> ok) {
    return all.stream().filter(ok).toList();
  }

  /** Each sentence's balanced pairs, in file order; sentences without any are left out. */
  static List<EdgeProbe.Sample> samples(List<PairAttention> all, SplittableRandom random) {
    List<EdgeProbe.Sample> out = new ArrayList<>();
    for (PairAttention a : all) {
      List<EdgeSampler.Pair> pairs = EdgeSampler.sample(a.sentence(), random);
      if (!pairs.isEmpty()) {
        out.add(new EdgeProbe.Sample(a, pairs));
      }
    }
    return out;
  }
}
