package io.headscope.model;

import io.headscope.model.core.BertConfig;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.ActivationCache;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.RunResult;
import io.headscope.model.engine.SpillFile;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.LongFunction;

/**
 * Turns a traced run's padded batch arrays into one {@link AttentionTrace} per input. It knows the
 * model only by what a trace names (its name, its shape, its vocabulary), not the facade that runs it.
 */
final class Traces {
  private final String model;
  private final BertConfig config;
  private final LongFunction<String> vocabToken;

  Traces(String model, BertConfig config, LongFunction<String> vocabToken) {
    this.model = model;
    this.config = config;
    this.vocabToken = vocabToken;
  }

  /** The traces of a run made for {@code request}: it captured what the request asks for. */
  List<AttentionTrace> of(TraceRequest request, RunResult r) {
    return of(request, r, null);
  }

  /**
   * The traces of a run; with {@link TraceRequest.Keep#SUMMARIES} each holds its summaries and recomputes
   * its maps on {@code engine} from the queries and keys the run kept.
   */
  List<AttentionTrace> of(TraceRequest request, RunResult r, io.headscope.model.engine.Engine engine) {
    boolean summaries = request.keep() == TraceRequest.Keep.SUMMARIES;
    List<Encoding> inputs = request.inputs();
    int layers = config.numHiddenLayers();
    int heads = config.numAttentionHeads();
    int d = config.hiddenSize();
    ActivationCache cache = r.cache();
    Activation hidden = cache.has(HookPoint.fin()) ? cache.get(HookPoint.fin()) : null; // none for maps only
    List<AttentionTrace> out = new ArrayList<>(inputs.size());
    OnDemandMaps onDemand = summaries ? onDemand(cache, engine, r.width()) : null;
    for (int i = 0; i < inputs.size(); i++) {
      int len = r.lengths()[i];
      float[][][][] attention = summaries ? null : new float[layers][heads][][];
      float[][][] valueNorms = new float[layers][heads][];
      for (int l = 0; l < layers; l++) {
        Activation pattern = summaries ? null : cache.get(HookPoint.pattern(l)); // (B, H, T, T)
        Activation norms = cache.derived(Capture.Derived.VALUE_NORMS, l); // (B, H, T)
        for (int h = 0; h < heads; h++) {
          if (!summaries) {
            attention[l][h] = pattern.matrix(len, len, i, h);
          }
          valueNorms[l][h] = norms.vector(len, i, h);
        }
      }
      int row = i;
      HeadSummaries kept = summaries ? summaries(cache, i, len, request.thumbnailSide()) : null;
      List<MaskPrediction> predictions = new ArrayList<>();
      for (RunResult.MaskDistribution m : r.maskedLm().get(i)) {
        predictions.add(new MaskPrediction(m.position(), top(m.probabilities(), request.top()), m.probabilities()));
      }
      float[][][] layerNorms = null;
      if (request.layerNormMaps()) {
        layerNorms = new float[layers][][];
        for (int l = 0; l < layers; l++) {
          layerNorms[l] = cache.derived(Capture.Derived.LAYER_NORM_MAP, l).matrix(len, len, i);
        }
      }
      out.add(new AttentionTrace(model, inputs.get(i), request.mask(), request.maps(), attention, valueNorms,
          hidden == null ? null : hidden.matrix(len, d, i), predictions,
          r.classProbabilities() == null ? null : r.classProbabilities()[i], layerNorms, kept,
          summaries ? h -> onDemand.map(h, row, len) : null));
    }
    return out;
  }

  private OnDemandMaps onDemand(ActivationCache cache, io.headscope.model.engine.Engine engine, int width) {
    int layers = config.numHiddenLayers();
    SpillFile.Region[] q = new SpillFile.Region[layers];
    SpillFile.Region[] k = new SpillFile.Region[layers];
    for (int l = 0; l < layers; l++) {
      q[l] = cache.spilled(Capture.Derived.QUERIES, l);
      k[l] = cache.spilled(Capture.Derived.GROUP_KEYS, l);
    }
    return new OnDemandMaps(engine, q, k, width);
  }

  /** Batch row {@code i}'s summaries from the engine's per-row numbers ({@link Capture.Derived#HEAD_SUMMARY}). */
  private HeadSummaries summaries(ActivationCache cache, int i, int len, int side) {
    int layers = config.numHiddenLayers();
    int heads = config.numAttentionHeads();
    int g = Math.min(len, side);
    float[][] max = new float[layers][heads];
    float[][] sink = new float[layers][heads];
    float[][] entropy = new float[layers][heads];
    float[][][] received = new float[layers][heads][];
    float[][][][] thumbs = new float[layers][heads][][];
    for (int l = 0; l < layers; l++) {
      Activation rows = cache.derived(Capture.Derived.HEAD_SUMMARY, l); // (B, H, 4, T)
      Activation pooled = cache.derived(Capture.Derived.THUMBNAILS, l); // (B, H, side, side)
      for (int h = 0; h < heads; h++) {
        float[][] s = rows.matrix(4, len, i, h);
        float top = 0;
        double first = 0;
        double ent = 0;
        for (int q = 0; q < len; q++) {
          top = Math.max(top, s[0][q]);
          first += s[1][q];
          ent += s[2][q];
        }
        max[l][h] = top;
        sink[l][h] = (float) (first / len);
        entropy[l][h] = (float) (ent / len);
        received[l][h] = new float[len];
        for (int j = 0; j < len; j++) {
          received[l][h][j] = s[3][j] / len;
        }
        float[][] t = pooled.matrix(side, side, i, h);
        thumbs[l][h] = new float[g][];
        for (int r = 0; r < g; r++) {
          thumbs[l][h][r] = java.util.Arrays.copyOf(t[r], g);
        }
      }
    }
    return new HeadSummaries(max, sink, entropy, received, thumbs, side);
  }

  /** The k most probable tokens, most probable first. */
  private List<MaskPrediction.TokenProbability> top(float[] dist, int k) {
    PriorityQueue<Integer> heap = new PriorityQueue<>((a, b) -> Float.compare(dist[a], dist[b]));
    for (int i = 0; i < dist.length; i++) {
      if (heap.size() < k) {
        heap.add(i);
      } else if (dist[i] > dist[heap.peek()]) {
        heap.poll();
        heap.add(i);
      }
    }
    List<MaskPrediction.TokenProbability> top = new ArrayList<>();
    while (!heap.isEmpty()) {
      int id = heap.poll();
      top.add(0, new MaskPrediction.TokenProbability(vocabToken.apply(id), id, dist[id]));
    }
    return top;
  }
}
