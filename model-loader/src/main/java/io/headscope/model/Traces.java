package io.headscope.model;

import io.headscope.model.core.HeadMask;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.ActivationCache;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.RunResult;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/** Turns a traced run's padded batch arrays into one {@link AttentionTrace} per input. */
final class Traces {
  private Traces() {}

  static List<AttentionTrace> of(BertModel model, List<Encoding> inputs, HeadMask mask, AttentionTrace.Maps maps,
      RunResult r, int topK, boolean withLayerNorms) {
    int layers = model.config().numHiddenLayers();
    int heads = model.config().numAttentionHeads();
    int d = model.config().hiddenSize();
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
        predictions.add(new MaskPrediction(m.position(), top(model, m.probabilities(), topK), m.probabilities()));
      }
      float[][][] layerNorms = null;
      if (withLayerNorms) {
        layerNorms = new float[layers][][];
        for (int l = 0; l < layers; l++) {
          layerNorms[l] = cache.derived(Capture.Derived.LAYER_NORM_MAP, l).matrix(len, len, i);
        }
      }
      out.add(new AttentionTrace(model.name(), inputs.get(i), mask, maps, attention, valueNorms,
          hidden == null ? null : hidden.matrix(len, d, i), predictions,
          r.classProbabilities() == null ? null : r.classProbabilities()[i], layerNorms));
    }
    return out;
  }

  /** The k most probable tokens, most probable first. */
  static List<MaskPrediction.TokenProbability> top(BertModel model, float[] dist, int k) {
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
      top.add(0, new MaskPrediction.TokenProbability(model.tokenizer().vocabToken(id), id, dist[id]));
    }
    return top;
  }
}
