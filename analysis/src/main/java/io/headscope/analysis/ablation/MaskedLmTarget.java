package io.headscope.analysis.ablation;

import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.engine.GradientRequest;
import io.headscope.model.engine.Intervention;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.store.ProgressListener;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;

/**
 * A pruning curve of masked-LM quality on text: the mean over inputs of the mean log-probability of the
 * targets at each input's {@link MlmProbe} positions, the measure {@code ablate} reports (targets fixed
 * by the intact model: its top token at a typed {@code [MASK]}, the original wordpiece at a sampled one).
 */
public final class MaskedLmTarget implements PruneTarget {
  private final BertModel model;
  private final List<Encoding> inputs;
  private final List<MlmProbe> probes = new ArrayList<>();
  private final List<long[]> targets = new ArrayList<>();
  private final long seed;
  private final HeadMask.Mode mode;

  public MaskedLmTarget(BertModel model, List<Encoding> inputs, long seed, HeadMask.Mode mode) {
    if (inputs.isEmpty()) {
      throw new IllegalArgumentException("no inputs");
    }
    this.model = model;
    this.inputs = List.copyOf(inputs);
    this.seed = seed;
    this.mode = mode;
    for (Encoding e : inputs) {
      MlmProbe p = MlmProbe.of(model, e, seed);
      probes.add(p);
      targets.add(p.kind() == MlmProbe.Kind.MASKS ? AblationSweep.topTokens(logProbs(p, null)) : p.originals());
    }
  }

  @Override
  public String metric() {
    return "logprob";
  }

  @Override
  public double measure(Set<Head> off, BooleanSupplier cancelled) {
    Intervention masks = Intervention.heads(HeadMask.of(off, mode), model.config());
    double sum = 0;
    for (int i = 0; i < probes.size(); i++) {
      if (cancelled.getAsBoolean()) {
        throw new CancellationException("pruning cancelled");
      }
      float[][] lp = logProbs(probes.get(i), masks);
      long[] t = targets.get(i);
      double mean = 0;
      for (int k = 0; k < t.length; k++) {
        mean += lp[k][(int) t[k]] / t.length;
      }
      sum += mean / probes.size();
    }
    return sum;
  }

  @Override
  public double[][] importance(Set<Head> off, ProgressListener progress, BooleanSupplier cancelled) {
    Intervention masks = Intervention.heads(HeadMask.of(off, mode), model.config());
    List<Intervention> with = masks == null ? List.of() : List.of(masks);
    List<HeadImportance.Gradient> g = new ArrayList<>();
    for (int i = 0; i < probes.size(); i++) {
      if (cancelled.getAsBoolean()) {
        throw new CancellationException("head importance cancelled");
      }
      MlmProbe p = probes.get(i);
      // the intact model's targets, so that pruning does not move the goal
      var r = model.gradient(new GradientRequest(p.input(), with, p.positions(), targets.get(i), null));
      g.add(new HeadImportance.Gradient(r.headMask(), r.loss()));
      progress.progress("Input " + (i + 1) + " of " + probes.size(), (i + 1) / (double) probes.size());
    }
    return HeadImportance.mean(g).importance();
  }

  @Override
  public double[][] sweepDelta(ProgressListener progress, BooleanSupplier cancelled) {
    return new AblationSweep(model).run(inputs, new AblationSweep.Options(mode, false, seed), progress, cancelled)
        .deltaLogprob();
  }

  private float[][] logProbs(MlmProbe p, Intervention masks) {
    return model.run(RunRequest.of(p.input()).intervene(masks).read(Readouts.none().withLogProbs(p.positions())))
        .logProbs()[0];
  }
}
