package io.headscope.model;

import io.headscope.model.core.BertConfig;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.ActivationCache;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.RunResult;
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
    List<Encoding> inputs = request.inputs();
    int layers = config.numHiddenLayers();
    int heads = config.numAttentionHeads();
    int d = config.hiddenSize();
    ActivationCache cache = r.cache();
    Activation hidden = cache.has(HookPoint.fin()) ? cache.get(HookPoint.fin()) : null; // none for maps only
    List<AttentionTrace> out = new ArrayList<>(inputs.size());
    for (int i = 0; i < inputs.size(); i++) {
      int len = r.lengths()[i];
      float[][][][] attention = new float[layers][heads][][];
      float[][][] valueNorms = new float[layers][heads][];
      for (int l = 0; l < layers; l++) {
        Activation pattern = cache.get(HookPoint.pattern(l)); // (B, H, T, T)
        Activation norms = cache.derived(Capture.Derived.VALUE_NORMS, l); // (B, H, T)
        for (int h = 0; h < heads; h++) {
          attention[l][h] = pattern.matrix(len, len, i, h);
          valueNorms[l][h] = norms.vector(len, i, h);
        }
      }
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
          r.classProbabilities() == null ? null : r.classProbabilities()[i], layerNorms));
    }
    return out;
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
