package io.headscope.analysis.favor;

import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.analysis.ablation.AblationResult;
import io.headscope.analysis.ablation.AblationSweep;
import io.headscope.analysis.ablation.MlmProbe;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.Intervention;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.engine.RunResult;
import io.headscope.model.store.ProgressListener;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;

/**
 * Which heads linear attention could replace (issue 18): per head, how close FAVOR+ comes to the real
 * map as the number of features m grows ({@link Favor#error}, mean and spread over R draws), and, when
 * asked, what running that head (or its whole layer, or every head) on FAVOR+ does to the masked-LM
 * score that {@code ablate} uses, beside switching the head off.
 *
 * <p>The effect of one head on FAVOR+ reuses the lower layers as the ablation sweep does: its queries and
 * keys are the intact model's, so its FAVOR+ map is computed once and patched into the pattern of a
 * batch of variants that starts at its layer. With every head on FAVOR+ each layer's map comes from the
 * queries and keys as they ran (Java edits at the hook points), one input at a time.
 */
public final class FavorAnalysis {
  /** What to compute. */
  public record Options(int[] features, int draws, long seed, List<RandomFeatures.Kind> kinds, boolean effect) {}

  /** One row of favor.csv: a head, a whole layer (head -1) or the whole model (layer and head -1). */
  public record Row(int layer, int head, int features, RandomFeatures.Kind kind, double mapError, double mapErrorSd,
      double deltaLogprob, double offDeltaLogprob, int inputs) {}

  /** The rows, and per features/kind the share of positions whose top token survives all heads on FAVOR+. */
  public record Result(List<Row> rows, double[][] fullModelAgreement) {}

  private FavorAnalysis() {}

  public static Result run(BertModel model, List<Encoding> inputs, Options o, ProgressListener progress,
      BooleanSupplier cancelled) {
    return result(model.config().numHiddenLayers(), model.config().numAttentionHeads(), o,
        each(model, inputs, o, progress, cancelled));
  }

  /**
   * One input's figures before the mean over inputs: what a shard of a corpus keeps.
   *
   * @param err {@code [layer][head][features][kind][draw]}: the map's error
   * @param headEffect {@code [layer][head][features][kind]}: change of the masked-LM score with the head on
   *     FAVOR+; null (as the other effects) without {@link Options#effect}
   * @param off {@code [layer][head]}: the change with the head switched off
   */
  public record PerInput(double[][][][][] err, double[][][][] headEffect, double[][][] layerEffect,
      double[][] modelEffect, double[][] agreement, double[][] off) {}

  /** Every input's figures, in input order. */
  public static List<PerInput> each(BertModel model, List<Encoding> inputs, Options o, ProgressListener progress,
      BooleanSupplier cancelled) {
    int layers = model.config().numHiddenLayers();
    int heads = model.config().numAttentionHeads();
    int nk = o.kinds().size();
    int nm = o.features().length;
    List<PerInput> out = new ArrayList<>();
    for (int x = 0; x < inputs.size(); x++) {
      double[][][][][] err = new double[layers][heads][nm][nk][o.draws()];
      Encoding e = inputs.get(x);
      int n = e.length();
      RunResult intact = model.run(RunRequest.of(e).capture(Capture.points(HookPoint.Kind.ATTN_Q,
          HookPoint.Kind.ATTN_K, HookPoint.Kind.ATTN_PATTERN, HookPoint.Kind.RESID_PRE)));
      FavorInput maps = FavorInput.of(intact, model);
      // every head's errors are independent: both cores share them
      java.util.stream.IntStream.range(0, layers * heads).parallel().forEach(lh -> {
        int l = lh / heads;
        int h = lh % heads;
        for (int mi = 0; mi < nm; mi++) {
          for (int ki = 0; ki < nk; ki++) {
            for (int d = 0; d < o.draws(); d++) {
              double[][] w = directions(o, l, h, d, mi, ki, model.config().headSize());
              err[l][h][mi][ki][d] = Favor.error(maps.exact(l, h), Favor.map(maps.q(l, h), maps.k(l, h), w,
                  model.config().family().causal()));
            }
          }
        }
      });
      if (cancelled.getAsBoolean()) {
        throw new CancellationException("favor cancelled");
      }
      progress.progress("Input " + (x + 1) + " of " + inputs.size() + ": map errors",
          (x + (o.effect() ? 0.3 : 1)) / inputs.size());
      if (!o.effect()) {
        out.add(new PerInput(err, null, null, null, null, null));
        continue;
      }
      double[][][][] headEffect = new double[layers][heads][nm][nk];
      double[][][] layerEffect = new double[layers][nm][nk];
      double[][] modelEffect = new double[nm][nk];
      double[][] agreement = new double[nm][nk];
      double[][] off = new double[layers][heads];
      MlmProbe probe = MlmProbe.of(model, e, o.seed());
      RunResult base = model.run(RunRequest.of(probe.input())
          .capture(Capture.points(HookPoint.Kind.ATTN_Q, HookPoint.Kind.ATTN_K, HookPoint.Kind.ATTN_PATTERN,
              HookPoint.Kind.RESID_PRE))
          .read(Readouts.none().withLogProbs(probe.positions())));
      FavorInput probeMaps = FavorInput.of(base, model);
      float[][] logp = base.logProbs()[0];
      long[] top = AblationSweep.topTokens(logp);
      long[] targets = probe.kind() == MlmProbe.Kind.MASKS ? top : probe.originals();
      double baseline = mean(logp, targets);
      Readouts compare = Readouts.none().withComparison(new Readouts.Comparison(probe.positions(), targets, logp));
      for (int mi = 0; mi < nm; mi++) {
        for (int ki = 0; ki < nk; ki++) {
          for (int l = 0; l < layers; l++) {
            if (cancelled.getAsBoolean()) {
              throw new CancellationException("favor cancelled");
            }
            // variants 0..H-1: head h on FAVOR+ (draw 0); variant H: the whole layer
            float[] patch = new float[(heads + 1) * heads * n * n];
            for (int v = 0; v <= heads; v++) {
              for (int h = 0; h < heads; h++) {
                boolean favor = v == heads || v == h;
                double[][] fav = favor ? Favor.map(probeMaps.q(l, h), probeMaps.k(l, h),
                    directions(o, l, h, 0, mi, ki, model.config().headSize()), model.config().family().causal()) : null;
                for (int i = 0; i < n; i++) {
                  for (int j = 0; j < n; j++) {
                    patch[((v * heads + h) * n + i) * n + j] = favor ? (float) fav[i][j] : probeMaps.exact(l, h)[i][j];
                  }
                }
              }
            }
            RunResult.TargetScores[] r = model.run(RunRequest.of(Collections.nCopies(heads + 1, probe.input()))
                .startingAt(l, base.cache().get(HookPoint.residPre(l)).repeatRows(heads + 1))
                .intervene(new Intervention.Patch(HookPoint.pattern(l), new Activation(patch, new int[] {heads + 1, heads, n, n})))
                .read(compare)).comparison();
            for (int h = 0; h < heads; h++) {
              headEffect[l][h][mi][ki] = mean(r[h]) - baseline;
            }
            layerEffect[l][mi][ki] = mean(r[heads]) - baseline;
          }
          RunResult all = allOnFavor(model, probe, compare, o, mi, ki);
          modelEffect[mi][ki] = mean(all.comparison()[0]) - baseline;
          double agree = 0;
          for (int p = 0; p < top.length; p++) {
            agree += (all.comparison()[0].top()[p] == top[p] ? 1.0 : 0.0) / top.length;
          }
          agreement[mi][ki] = agree;
          progress.progress("Input " + (x + 1) + " of " + inputs.size() + ": effects",
              (x + 0.3 + 0.7 * (mi * nk + ki + 1) / (double) (nm * nk)) / inputs.size());
        }
      }
      AblationResult sweep = new AblationSweep(model).run(List.of(e),
          new AblationSweep.Options(HeadMask.Mode.ZERO, false, o.seed()), ProgressListener.NONE, cancelled);
      for (int l = 0; l < layers; l++) {
        for (int h = 0; h < heads; h++) {
          off[l][h] = sweep.deltaLogprob(l, h);
        }
      }
      out.add(new PerInput(err, headEffect, layerEffect, modelEffect, agreement, off));
    }
    return out;
  }

  /** The rows from every input's figures: means over inputs summed in the order given (it fixes the last bits). */
  public static Result result(int layers, int heads, Options o, List<PerInput> each) {
    int nk = o.kinds().size();
    int nm = o.features().length;
    int count = each.size();
    // per draw: the error summed over inputs, then averaged; and the effects
    double[][][][][] err = new double[layers][heads][nm][nk][o.draws()];
    double[][][][] headEffect = new double[layers][heads][nm][nk];
    double[][][] layerEffect = new double[layers][nm][nk];
    double[][] modelEffect = new double[nm][nk];
    double[][] agreement = new double[nm][nk];
    double[][] off = new double[layers][heads];
    for (PerInput x : each) {
      for (int l = 0; l < layers; l++) {
        for (int h = 0; h < heads; h++) {
          for (int mi = 0; mi < nm; mi++) {
            for (int ki = 0; ki < nk; ki++) {
              for (int d = 0; d < o.draws(); d++) {
                err[l][h][mi][ki][d] += x.err()[l][h][mi][ki][d] / count;
              }
              if (o.effect()) {
                headEffect[l][h][mi][ki] += x.headEffect()[l][h][mi][ki] / count;
              }
            }
          }
          if (o.effect()) {
            off[l][h] += x.off()[l][h] / count;
          }
        }
        for (int mi = 0; o.effect() && mi < nm; mi++) {
          for (int ki = 0; ki < nk; ki++) {
            layerEffect[l][mi][ki] += x.layerEffect()[l][mi][ki] / count;
          }
        }
      }
      for (int mi = 0; o.effect() && mi < nm; mi++) {
        for (int ki = 0; ki < nk; ki++) {
          modelEffect[mi][ki] += x.modelEffect()[mi][ki] / count;
          agreement[mi][ki] += x.agreement()[mi][ki] / count;
        }
      }
    }
    List<Row> rows = new ArrayList<>();
    double nan = Double.NaN;
    for (int mi = 0; mi < nm; mi++) {
      for (int ki = 0; ki < nk; ki++) {
        RandomFeatures.Kind kind = o.kinds().get(ki);
        int m = o.features()[mi];
        double[] modelDraws = new double[o.draws()];
        for (int l = 0; l < layers; l++) {
          double[] layerDraws = new double[o.draws()];
          for (int h = 0; h < heads; h++) {
            double[] draws = err[l][h][mi][ki];
            for (int d = 0; d < draws.length; d++) {
              layerDraws[d] += draws[d] / heads;
              modelDraws[d] += draws[d] / (heads * layers);
            }
            rows.add(new Row(l + 1, h + 1, m, kind, mean(draws), sd(draws),
                o.effect() ? headEffect[l][h][mi][ki] : nan, o.effect() ? off[l][h] : nan, count));
          }
          rows.add(new Row(l + 1, -1, m, kind, mean(layerDraws), sd(layerDraws),
              o.effect() ? layerEffect[l][mi][ki] : nan, nan, count));
        }
        rows.add(new Row(-1, -1, m, kind, mean(modelDraws), sd(modelDraws), o.effect() ? modelEffect[mi][ki] : nan,
            nan, count));
      }
    }
    return new Result(rows, o.effect() ? agreement : null);
  }

  /** Every head on FAVOR+ (draw 0): each layer's maps from its queries and keys as they ran. */
  private static RunResult allOnFavor(BertModel model, MlmProbe probe, Readouts compare, Options o, int mi, int ki) {
    return model.run(allHeadsOnFavor(model, RunRequest.of(probe.input()).read(compare), o.seed(), o.features()[mi],
        o.kinds().get(ki), 0));
  }

  /**
   * {@code request} with every head of every layer on FAVOR+ at m features (draw {@code draw}): each
   * layer's q and k are read where they are computed and its pattern replaced by their FAVOR+ maps, so
   * later layers see the approximated earlier ones. One input (batch of one).
   */
  public static RunRequest allHeadsOnFavor(BertModel model, RunRequest request, long seed, int m,
      RandomFeatures.Kind kind, int draw) {
    Set<Head> all = new TreeSet<>();
    for (int l = 0; l < model.config().numHiddenLayers(); l++) {
      for (int h = 0; h < model.config().numAttentionHeads(); h++) {
        all.add(new Head(l, h));
      }
    }
    return headsOnFavor(model, request, all, seed, m, kind, draw);
  }

  /**
   * {@code request} with the given heads on FAVOR+ at m features (draw {@code draw}) and every other
   * head exact: in each layer that has such a head, q and k are read where they are computed and those
   * heads' rows of the pattern replaced by their FAVOR+ maps (the other heads' rows pass unchanged), so
   * later layers see the approximation. One input (batch of one).
   */
  public static RunRequest headsOnFavor(BertModel model, RunRequest request, Set<Head> onFavor, long seed, int m,
      RandomFeatures.Kind kind, int draw) {
    int layers = model.config().numHiddenLayers();
    int heads = model.config().numAttentionHeads();
    int dh = model.config().headSize();
    RunRequest r = request;
    for (int l = 0; l < layers; l++) {
      int layer = l;
      List<Integer> replaced = new ArrayList<>();
      for (int h = 0; h < heads; h++) {
        if (onFavor.contains(new Head(l, h))) {
          replaced.add(h);
        }
      }
      if (replaced.isEmpty()) {
        continue; // nothing to read or replace in this layer
      }
      Activation[] qk = new Activation[2];
      r = r.intervene(new Intervention.Edit(HookPoint.of(HookPoint.Kind.ATTN_Q, l), a -> qk[0] = a))
          .intervene(new Intervention.Edit(HookPoint.of(HookPoint.Kind.ATTN_K, l), a -> qk[1] = a))
          .intervene(new Intervention.Edit(HookPoint.pattern(l), a -> {
            if (a.dim(0) != 1) {
              throw new IllegalArgumentException("FAVOR+ heads run one input at a time, got a batch of " + a.dim(0));
            }
            int n = a.dim(2);
            float[] out = a.data().clone();
            for (int h : replaced) {
              double[][] fav = Favor.map(qk[0].matrix(n, dh, 0, h), qk[1].matrix(n, dh, 0, h),
                  directions(seed, m, kind, layer, h, draw, dh), model.config().family().causal());
              for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                  out[(h * n + i) * n + j] = (float) fav[i][j];
                }
              }
            }
            return new Activation(out, a.shape());
          }));
    }
    return r;
  }

  static double[][] directions(Options o, int layer, int head, int draw, int mi, int ki, int dh) {
    return directions(o.seed(), o.features()[mi], o.kinds().get(ki), layer, head, draw, dh);
  }

  /** The directions of draw {@code draw} of a head at m features: one seed per (m, layer, head, draw, kind). */
  public static double[][] directions(long seed, int m, RandomFeatures.Kind kind, int layer, int head, int draw,
      int dh) {
    return RandomFeatures.draw(kind, m, dh, new Random(RandomFeatures.seed(seed * 1_000_003L + m, layer, head, draw,
        kind)));
  }

  private static double mean(float[][] logp, long[] targets) {
    double s = 0;
    for (int p = 0; p < targets.length; p++) {
      s += logp[p][(int) targets[p]] / targets.length;
    }
    return s;
  }

  private static double mean(RunResult.TargetScores t) {
    double s = 0;
    for (float v : t.targetLogProbs()) {
      s += v / t.targetLogProbs().length;
    }
    return s;
  }

  static double mean(double[] v) {
    double s = 0;
    for (double x : v) {
      s += x / v.length;
    }
    return s;
  }

  static double sd(double[] v) {
    if (v.length < 2) {
      return 0;
    }
    double m = mean(v);
    double s = 0;
    for (double x : v) {
      s += (x - m) * (x - m);
    }
    return Math.sqrt(s / (v.length - 1));
  }
}
