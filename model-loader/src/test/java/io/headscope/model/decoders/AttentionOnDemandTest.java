package io.headscope.model.decoders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.HeadSummaries;
import io.headscope.model.TraceRequest;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.Engine;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.engine.RunResult;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.Float32Bounds;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A trace of summaries ({@link TraceRequest.Keep#SUMMARIES}) against a full trace of the same batch, on a
 * tiny grouped-query Llama and a tiny BERT, with inputs of two lengths (so padding is in play):
 *
 * <ul>
 *   <li>every head's map recomputed on demand equals the full trace's map: bit for bit where the engine
 *       measures its products batch-invariant (then one head's product is the bits of the batched one),
 *       else within the float32 bound {@link #bound} derives from the queries and keys themselves;
 *   <li>the summaries equal what {@link #expected} computes from the full maps in double: the largest weight,
 *       the thumbnails (max-pooling picks cells) and the first token's share exactly, the entropy and the
 *       weight each key receives within the float32 bound of their sums.
 * </ul>
 */
class AttentionOnDemandTest {
  private static final double U = Math.ulp(1.0f) / 2; // float32's unit roundoff, 2^-24
  @TempDir Path dir;

  @Test
  void aGroupedQueryLlamasMapsOnDemandAreTheFullTracesMaps() {
    try (BertModel model = llama(41)) {
      List<Encoding> batch = List.of(model.encode(HandLlamaTokenizer.TEXT, null), model.encode("a cab", null));
      assertThat(batch.get(0).length()).isGreaterThan(batch.get(1).length());
      check(model, batch);
    }
  }

  /**
   * A long input's summarised layers are computed one head at a time (16 MB of scores each at 2,048 tokens):
   * the same checks with the tiny model's heads read one at a time, so that the chunks' products, the
   * summaries put together chunk by chunk and the layer's output concatenated from them are exercised.
   */
  @Test
  void aGroupedQueryLlamasHeadsComputedOneAtATimeGiveTheSameMapsAndSummaries() {
    long old = Engine.attentionChunkCells(1);
    try (BertModel model = llama(44)) {
      List<Encoding> batch = List.of(model.encode(HandLlamaTokenizer.TEXT, null), model.encode("a cab", null));
      check(model, batch);
      // the layers after the first read the chunked layers' output: the predictions agree with a full trace's
      Encoding e = batch.get(0);
      AttentionTrace chunked = model.trace(TraceRequest.of(e).summaries()).get(0);
      Engine.attentionChunkCells(old);
      AttentionTrace whole = model.trace(TraceRequest.of(e).summaries()).get(0);
      assertThat(chunked.summaries(4).entropy()).isDeepEqualTo(whole.summaries(4).entropy());
      assertThat(chunked.map(new Head(1, 2))).isDeepEqualTo(whole.map(new Head(1, 2)));
    } finally {
      Engine.attentionChunkCells(old);
    }
  }

  /**
   * A causal layer's chunks of query rows read only the keys up to their last query (every later key is masked):
   * with chunks at their smallest, 16 rows of one head, an input of more than 32 tokens is read in three or more
   * chunks of rows per head (the first reading 16 keys, the last every key), padded beside a short one, and its
   * thumbnails' blocks of rows (a quarter of the input each) straddle the chunks. The maps on demand and the
   * summaries are checked against a full trace as above; and the layers after the first read the chunked layers'
   * output: the same trace computed a whole head at a time gives the same largest weights, thumbnails and maps.
   */
  @Test
  void aLlamasQueryRowsComputedSixteenAtATimeGiveTheSameMapsAndSummaries() {
    long old = Engine.attentionChunkCells(1);
    try (BertModel model = llama(46)) {
      String text = String.join(" ", java.util.Collections.nCopies(4, HandLlamaTokenizer.TEXT));
      List<Encoding> batch = List.of(model.encode(text, null), model.encode("a cab", null));
      assertThat(batch.get(0).length()).isGreaterThan(2 * 16);
      check(model, batch);
      AttentionTrace rows = model.trace(TraceRequest.of(batch.get(0)).summaries(4)).get(0);
      Engine.attentionChunkCells(1L << 22);
      AttentionTrace whole = model.trace(TraceRequest.of(batch.get(0)).summaries(4)).get(0);
      assertThat(rows.summaries(4).maxWeight()).isDeepEqualTo(whole.summaries(4).maxWeight());
      assertThat(rows.summaries(4).thumbnail(new Head(1, 3))).isDeepEqualTo(whole.summaries(4).thumbnail(new Head(1, 3)));
      assertThat(rows.map(new Head(1, 2))).isDeepEqualTo(whole.map(new Head(1, 2)));
    } finally {
      Engine.attentionChunkCells(old);
    }
  }

  /**
   * Summaries captured after the head masks read a pattern that is not the softmax of the scores (a switched-off
   * head's map is all zeros): their entropy is summed per cell in float32, {@code -sum p log max(p, 1e-30)}.
   * Checked per row against {@code -sum p log p} in double over the maps as run, and the switched-off head's
   * summaries are zeros.
   */
  @Test
  void summariesAfterTheHeadMasksAreOfTheMapsAsRun() {
    try (BertModel model = llama(45)) {
      Encoding e = model.encode(HandLlamaTokenizer.TEXT, null);
      int layers = model.config().numHiddenLayers();
      int heads = model.config().numAttentionHeads();
      float[][][] keep = new float[1][layers][heads];
      for (float[] layer : keep[0]) {
        java.util.Arrays.fill(layer, 1f);
      }
      keep[0][0][1] = 0f;
      RunResult r = model.run(RunRequest.of(List.of(e))
          .intervene(new io.headscope.model.engine.Intervention.HeadMasks(keep, HeadMask.Mode.ZERO))
          .capture(Capture.derived(Capture.Derived.HEAD_SUMMARY))
          .capture(Capture.points(HookPoint.Kind.ATTN_PATTERN)));
      int n = e.length();
      // only layer 0 has a head switched off, so only its pattern as run is not the softmax of its scores (the
      // other layers' summaries come from the scores, checked in check above)
      for (int l = 0; l < 1; l++) {
        Activation rows = r.cache().derived(Capture.Derived.HEAD_SUMMARY, l); // (1, H, 4, T)
        Activation pattern = r.cache().get(HookPoint.of(HookPoint.Kind.ATTN_PATTERN, l)); // as run
        for (int h = 0; h < heads; h++) {
          for (int q = 0; q < n; q++) {
            float max = 0;
            double ent = 0;
            for (int k = 0; k < n; k++) {
              float p = pattern.get(0, h, q, k);
              max = Math.max(max, p);
              if (p > 0) {
                ent -= p * Math.log(p);
              }
            }
            assertThat(rows.get(0, h, 0, q)).as("max %d-%d row %d", l, h, q).isEqualTo(max);
            // each term's log within 2 ulp and product 1 ulp, the float32 sum gamma_{n-1} of the terms' sizes
            // (all of one sign), the floor at most n 1e-30 69
            double bound = (Float32Bounds.gamma(n - 1) + 4 * U) * Math.abs(ent) + n * 1e-30 * 70;
            assertThat((double) Math.abs(rows.get(0, h, 2, q) - ent)).as("entropy %d-%d row %d", l, h, q)
                .isLessThanOrEqualTo(bound);
            if (l == 0 && h == 1) {
              assertThat(rows.get(0, h, 0, q)).isZero();
              assertThat(rows.get(0, h, 2, q)).isZero();
            }
          }
        }
      }
    }
  }

  @Test
  void aBertsMapsOnDemandAreTheFullTracesMaps() {
    try (BertModel model = BertModel.load(TinyBert.create(2, 4, 7).writeTo(dir.resolve("bert")))) {
      List<Encoding> batch = List.of(model.encode("the cat sat on the mat .", null), model.encode("a dog", null));
      check(model, batch);
    }
  }

  /**
   * ModernBERT's local layers see only the keys within {@code window / 2}: a map recomputed on demand must carry
   * its layer's band, or its far cells would hold weight the run never gave (the tiny model's window is 4, so
   * the 10-token input has far cells in every local layer).
   */
  @Test
  void aModernBertsWindowedMapsOnDemandAreTheFullTracesMaps() {
    TinyNeoxModern m = new TinyNeoxModern(NeoxModernFamiliesTest.modernBert(), 43);
    Path folder = m.writeTo(dir.resolve("modernbert"));
    try (BertModel model = BertModel.load(new ModelRepository(dir.resolve("cache")).folder(folder))) {
      List<Encoding> batch = List.of(model.encode(HandModernTokenizer.TEXT, null), model.encode("a cab", null));
      check(model, batch);
      AttentionTrace t = model.trace(TraceRequest.of(batch.get(0)).summaries()).get(0);
      float[][] local = t.map(new Head(1, 0)); // layer 0 is global, layer 1 local (every 2nd layer global)
      assertThat(local[0][local.length - 1]).isZero();
    }
  }

  @Test
  void aTraceOfSummariesRefusesAsRunMapsOfSwitchedOffHeadsAndAClosedModel() {
    AttentionTrace t;
    try (BertModel model = llama(42)) {
      Encoding e = model.encode(HandLlamaTokenizer.TEXT, null);
      assertThatThrownBy(() -> TraceRequest.of(e).mask(HeadMask.of(java.util.Set.of(new Head(0, 1)), HeadMask.Mode.ZERO)).maps(AttentionTrace.Maps.AS_RUN)
          .summaries()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("as computed");
      t = model.trace(TraceRequest.of(e).summaries()).get(0);
      assertThat(t.hasFullMaps()).isFalse();
    }
    assertThatThrownBy(() -> t.map(new Head(0, 0))).isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("closed");
  }

  /** The tiny grouped-query Llama (bf16, sharded) of {@code seed}, written to a folder of this test and loaded. */
  private BertModel llama(long seed) {
    Path folder = new TinyDecoder(DecoderFamiliesTest.llama(null), seed).writeTo(dir.resolve("llama-" + seed));
    return BertModel.load(new ModelRepository(dir.resolve("cache")).folder(folder));
  }

  private static void check(BertModel model, List<Encoding> batch) {
    int side = 4; // below the 9-token input's length: blocks of 2 and 3 rows
    List<AttentionTrace> full = model.trace(TraceRequest.of(batch));
    List<AttentionTrace> kept = model.trace(TraceRequest.of(batch).summaries(side));
    // the queries and keys as the run's scores read them, for the bound
    RunResult qk = model.run(RunRequest.of(batch).capture(Capture.points(HookPoint.Kind.ATTN_Q, HookPoint.Kind.ATTN_K,
        HookPoint.Kind.ATTN_SCORES)));
    int width = batch.stream().mapToInt(Encoding::length).max().orElseThrow();
    boolean bitwise = model.batchInvariant();
    int layers = model.config().numHiddenLayers();
    int heads = model.config().numAttentionHeads();
    for (int i = 0; i < batch.size(); i++) {
      AttentionTrace f = full.get(i);
      AttentionTrace s = kept.get(i);
      assertThat(s.hasFullMaps()).isFalse();
      assertThat(s.attention()).isNull();
      int n = batch.get(i).length();
      HeadSummaries got = s.summaries(side);
      for (int l = 0; l < layers; l++) {
        for (int h = 0; h < heads; h++) {
          Head head = new Head(l, h);
          float[][] want = f.map(head);
          float[][] map = s.map(head);
          assertThat(map.length).isEqualTo(n);
          for (int q = 0; q < n; q++) {
            for (int k = 0; k < n; k++) {
              double b = bitwise ? 0 : bound(qk, i, l, h, q, k, n, want[q][k], map[q][k], model);
              assertThat((double) Math.abs(map[q][k] - want[q][k])).as("input %d head %s query %d key %d", i, head, q, k)
                  .isLessThanOrEqualTo(b);
            }
          }
          Expected e = expected(want, side);
          assertThat(got.maxWeight()[l][h]).isEqualTo(e.max);
          assertThat(got.sink()[l][h]).isEqualTo((float) e.sink);
          assertThat(got.thumbnail(head)).isDeepEqualTo(e.thumbnail);
          double entBound = entropyBound(want, qk.cache().get(HookPoint.of(HookPoint.Kind.ATTN_SCORES, l)), i, h, width)
              + Math.ulp((float) e.entropy);
          assertThat((double) Math.abs(got.entropy()[l][h] - e.entropy)).as("entropy %s", head).isLessThanOrEqualTo(entBound);
          for (int k = 0; k < n; k++) {
            // the column's float32 sum over n rows (gamma_{n-1} of the sum of non-negative terms), then / n
            double recBound = (Float32Bounds.gamma(n - 1) + 2 * U) * e.received[k] + Math.ulp((float) e.received[k]);
            assertThat((double) Math.abs(got.received()[l][h][k] - e.received[k])).as("received %s key %d", head, k)
                .isLessThanOrEqualTo(recBound);
          }
        }
      }
      // a full trace's summaries are computed from its maps
      assertThat(f.summaries(side).maxWeight()[0][0]).isEqualTo(expected(f.map(new Head(0, 0)), side).max);
    }
  }

  /**
   * Where products are not batch-invariant (another CPU's kernels), the recomputed score and the run's
   * differ only by the rounding of their two dot products of dh terms: each within {@code gamma_dh sum_k
   * |q_k k_k| / sqrt(dh)} of the exact score, plus the rounding of the division by sqrt(dh) (u |s|). Scores
   * that all move by at most delta change the exact softmax by a factor within {@code e^{+-2 delta}}, and each
   * float32 softmax is within {@code (n + 4) u} of its exact value (exp within 1 ulp, the sum gamma_n, the
   * division u). So |p1 - p2| <= max(p) ((e^{2 delta} - 1) + 2 (n + 4) u), delta the largest over the row's keys.
   */
  private static double bound(RunResult qk, int row, int l, int h, int q, int key, int n, float p1, float p2,
      BertModel model) {
    Activation queries = qk.cache().get(HookPoint.of(HookPoint.Kind.ATTN_Q, l));
    Activation keys = qk.cache().get(HookPoint.of(HookPoint.Kind.ATTN_K, l));
    int dh = queries.dim(3);
    double root = Math.sqrt(dh);
    double delta = 0;
    for (int k = 0; k < n; k++) {
      double abs = 0;
      double dot = 0;
      for (int c = 0; c < dh; c++) {
        double a = queries.get(row, h, q, c);
        double b = keys.get(row, h, k, c);
        abs += Math.abs(a * b);
        dot += a * b;
      }
      delta = Math.max(delta, 2 * (Float32Bounds.gamma(dh) * abs / root + U * Math.abs(dot) / root));
    }
    return Math.max(p1, p2) * (Math.expm1(2 * delta) + 2 * (n + 4) * U);
  }

  /**
   * How far the summaries' mean row entropy, computed from the scores s the softmax read as {@code H = m - log
   * p_max - sum_j p_j s_j} (HeadSummariser), may be from {@code -sum_j p_j log p_j} of the stored map in
   * double. With q the exact softmax of s, each stored p_j = q_j (1 + t_j), |t_j| <= theta = (W + 4) u over the
   * batch's width W (exp within 1 ulp, the sum gamma_W, the division u). Then {@code |-sum p log p - H(q)| <=
   * theta (H + 1) + theta (1 + 2 theta)}; the key with the largest score has q = 1/Z, so {@code -log p_max} is
   * within theta / (1 - theta) of log Z; {@code sum p s} is within {@code theta S / (1 - theta)} of {@code sum q
   * s} and its float32 sum within {@code gamma_W S} of it, {@code S = sum_j p_j |s_j|}; the row's float32 result
   * adds u |H|. The rows' bounds are averaged as the rows are.
   */
  private static double entropyBound(float[][] map, Activation scores, int row, int h, int width) {
    double theta = (width + 4) * U;
    int n = map.length;
    double total = 0;
    for (int q = 0; q < n; q++) {
      double ent = 0;
      double s = 0;
      for (int k = 0; k < n; k++) {
        double p = map[q][k];
        if (p > 0) {
          ent -= p * Math.log(p);
        }
        s += p * Math.abs(scores.get(row, h, q, k));
      }
      total += theta * (ent + 1) + theta * (1 + 2 * theta) + theta / (1 - theta)
          + (Float32Bounds.gamma(width) + theta / (1 - theta)) * s + U * ent;
    }
    return total / n;
  }

  /** What the summaries should hold, computed here in double from a full map. */
  private record Expected(float max, double sink, double entropy, double absEntropy, double[] received,
      float[][] thumbnail) {}

  private static Expected expected(float[][] m, int side) {
    int n = m.length;
    float max = 0;
    double sink = 0;
    double entropy = 0;
    double[] received = new double[n];
    for (float[] row : m) {
      sink += row[0];
      for (int j = 0; j < n; j++) {
        max = Math.max(max, row[j]);
        received[j] += row[j];
        if (row[j] > 0) {
          entropy -= row[j] * Math.log(row[j]);
        }
      }
    }
    for (int j = 0; j < n; j++) {
      received[j] /= n;
    }
    // the grid's pooling written out: block k of g holds the rows (and columns) i with floor(i g / n) = k
    int g = Math.min(n, side);
    float[][] thumb = new float[g][g];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        int r = i * g / n;
        int c = j * g / n;
        thumb[r][c] = Math.max(thumb[r][c], m[i][j]);
      }
    }
    return new Expected(max, sink / n, entropy / n, entropy / n, received, thumb);
  }
}
