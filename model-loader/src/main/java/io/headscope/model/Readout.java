package io.headscope.model;

import ai.djl.ndarray.NDArray;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The boundary between tensors and the rest of the program: turns one forward pass's native arrays
 * into {@link AttentionTrace} records of plain Java arrays, trimming each input's padding.
 */
final class Readout {
  private Readout() {}

  static List<AttentionTrace> traces(BertModel model, BertModel.Batch batch, List<Encoding> inputs,
      HeadMask mask, NDArray[] patterns, NDArray[] norms, NDArray x, int topK) {
    int b = inputs.size();
    int t = batch.width();
    int layers = patterns.length;
    int heads = model.config().numAttentionHeads();
    int d = model.config().hiddenSize();

    float[][][][][] attention = new float[b][layers][heads][][];
    float[][][][] valueNorms = new float[b][layers][heads][];
    for (int l = 0; l < layers; l++) {
      float[] p = patterns[l].toFloatArray(); // (B, H, T, T)
      float[] n = norms[l].toFloatArray(); // (B, H, T)
      for (int i = 0; i < b; i++) {
        int len = batch.lengths()[i];
        for (int h = 0; h < heads; h++) {
          float[][] map = new float[len][len];
          int base = ((i * heads + h) * t) * t;
          for (int q = 0; q < len; q++) {
            System.arraycopy(p, base + q * t, map[q], 0, len);
          }
          attention[i][l][h] = map;
          float[] row = new float[len];
          System.arraycopy(n, (i * heads + h) * t, row, 0, len);
          valueNorms[i][l][h] = row;
        }
      }
    }

    float[] hidden = x.toFloatArray(); // (B, T, d)
    List<List<MaskPrediction>> predictions = maskedLm(model, inputs, x, t, topK);
    float[][] classes = null;
    if (model.hasClassifier()) {
      NDArray probs = model.engine().classifierLogits(x).softmax(-1); // (B, labels)
      int labels = (int) probs.getShape().get(1);
      float[] flat = probs.toFloatArray();
      classes = new float[b][labels];
      for (int i = 0; i < b; i++) {
        System.arraycopy(flat, i * labels, classes[i], 0, labels);
      }
    }

    List<AttentionTrace> out = new ArrayList<>(b);
    for (int i = 0; i < b; i++) {
      int len = batch.lengths()[i];
      float[][] states = new float[len][d];
      for (int q = 0; q < len; q++) {
        System.arraycopy(hidden, (i * t + q) * d, states[q], 0, d);
      }
      out.add(new AttentionTrace(model.name(), inputs.get(i), mask, attention[i], valueNorms[i],
          states, predictions.get(i), classes == null ? null : classes[i]));
    }
    return out;
  }

  /** Masked-LM distributions at every {@code [MASK]} of every input, in one product for the batch. */
  static List<List<MaskPrediction>> maskedLm(BertModel model, List<Encoding> inputs, NDArray x, int t, int topK) {
    List<List<MaskPrediction>> out = new ArrayList<>();
    List<Long> rows = new ArrayList<>();
    long maskId = model.tokenizer().maskId();
    for (int i = 0; i < inputs.size(); i++) {
      out.add(new ArrayList<>());
      if (!model.hasMaskedLmHead()) {
        continue;
      }
      long[] ids = inputs.get(i).ids();
      for (int q = 0; q < ids.length; q++) {
        if (ids[q] == maskId) {
          rows.add((long) i * t + q);
        }
      }
    }
    if (rows.isEmpty()) {
      return out;
    }
    int d = model.config().hiddenSize();
    NDArray flat = x.reshape(-1, d); // (B*T, d)
    NDArray index = x.getManager().create(rows.stream().mapToLong(Long::longValue).toArray());
    NDArray probs = model.engine().mlmLogits(flat.get(index)).softmax(-1); // (M, V)
    int vocab = (int) probs.getShape().get(1);
    float[] all = probs.toFloatArray();
    for (int r = 0; r < rows.size(); r++) {
      int input = (int) (rows.get(r) / t);
      int position = (int) (rows.get(r) % t);
      float[] dist = new float[vocab];
      System.arraycopy(all, r * vocab, dist, 0, vocab);
      out.get(input).add(new MaskPrediction(position, top(model, dist, topK), dist));
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
