package io.headscope.model.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.core.Linear;
import ai.djl.nn.norm.LayerNorm;
import io.headscope.model.core.BertConfig;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.core.Parts;
import java.util.List;

/**
 * The forward pass of BERT and the families built like it ({@link io.headscope.model.core.Family}),
 * written as the equations with DJL NDArray operations.
 *
 * <p>BERT is post-LayerNorm: {@code resid = ln1(x + attn(x)); x = ln2(resid + ffn(resid))}; GPT-2 is
 * pre-LayerNorm: {@code resid = x + attn(ln1(x)); x = resid + ffn(ln2(resid))}, with {@code ln_f} before
 * its LM head, and attends causally (the scores of later keys get the padding score). Every
 * intermediate passes through its {@link HookPoint} ({@link Hooks#at}), the same points in every
 * family. All arrays created here belong to the caller's {@code scope} manager; the weights belong to
 * {@link BertWeights}.
 *
 * <p>What a family is made of is its {@link Parts}: the norm (LayerNorm or RMSNorm) and its place (after or
 * before each sublayer), the positions (learned, added to the embeddings, or rotary, applied to each
 * head's queries and keys: {@link Rotary}), the attention (as many key/value heads as query heads, or
 * fewer: grouped-query, each key/value head shared by {@code H / K} query heads and expanded to them
 * before {@code hook_k} and {@code hook_v}), the mask (bidirectional, causal, causal within a window), the
 * MLP (GELU, or SwiGLU) and the head. BERT's kin and GPT-2 keep the fused path they always had, bit for bit.
 *
 * <p>Shapes: B batch, T tokens, H heads, d hidden size, dh = d / H.
 */
final class BertEncoder {
  /** Added to the scores of padding keys: exp(-10000) is 0 in float32, as in Google's BERT. */
  private static final float PADDING_SCORE = -10000f;

  private final BertWeights w;
  private final BertConfig c;
  /** The masked-LM head's activation (RoBERTa's and ELECTRA's heads use the exact GELU always). */
  private final BertConfig.Gelu headGelu;
  private final Parts parts;
  /** Each layer's rotary angles (null for learned positions); ModernBERT's local layers have their own. */
  private final Rotary[] rotary;

  BertEncoder(BertWeights weights) {
    this.w = weights;
    this.c = weights.config;
    this.parts = c.parts();
    // SwiGLU's activation is SiLU, and a decoder's head has no transform; ModernBERT's masked-LM head has one
    this.headGelu = parts.mlp() == Parts.Mlp.GATED_SILU || parts.gated() && parts.head() != Parts.Head.MASKED_LM ? null
        : BertConfig.Gelu.of(c.family().headActivation(c.hiddenAct()));
    this.rotary = parts.rotaryDecoder() ? new Rotary[c.numHiddenLayers()] : null;
    if (rotary != null) {
      Rotary global = new Rotary(parts.rotary(), c.headSize());
      Rotary local = parts.local() == null ? null : new Rotary(parts.local().rotary(), c.headSize());
      for (int l = 0; l < rotary.length; l++) {
        rotary[l] = parts.rotary(l) == parts.rotary() ? global : local;
      }
    }
  }

  /**
   * The additive padding mask for the scores, (B, 1, 1, T), from the real-token mask (B, T); null when
   * nothing is padded (one input, or inputs of one length), where adding it would change no value and
   * only cost a pass over every score (a fifth of the work at 512 tokens).
   */
  NDArray scoreMask(NDArray realTokens) {
    NDArray padding = null;
    if (!realTokens.all().getBoolean()) {
      NDArray real = realTokens.toType(ai.djl.ndarray.types.DataType.FLOAT32, false);
      padding = real.sub(Scalars.of(real, 1f)).mul(Scalars.of(real, -PADDING_SCORE)).expandDims(1).expandDims(1); // 0 for real keys, -10000 for padding
    }
    if (parts.mask() != Parts.Mask.CAUSAL) {
      return padding; // a bidirectional window is a layer's (layerMask)
    }
    // (1, 1, T, T): query i may not see key j > i; as for padding, exp of the added score is exactly 0
    int t = (int) realTokens.getShape().get(1);
    float[] later = new float[t * t];
    for (int i = 0; i < t; i++) {
      java.util.Arrays.fill(later, i * t + i + 1, (i + 1) * t, PADDING_SCORE);
    }
    int window = parts.window();
    for (int i = window; window > 0 && i < t; i++) {
      // a sliding window (Mistral): query i sees keys j with i - window < j <= i, so not j <= i - window
      java.util.Arrays.fill(later, i * t, i * t + i - window + 1, PADDING_SCORE);
    }
    NDArray causal = realTokens.getManager().create(later, new Shape(1, 1, t, t));
    return padding == null ? causal : padding.add(causal); // (B, 1, T, T)
  }

  /**
   * Layer {@code l}'s mask: the run's ({@link #scoreMask}), plus for a windowed layer of a bidirectional model
   * (ModernBERT's local layers) -10000 on every key j with {@code |i - j| > window / 2}, as transformers'
   * {@code ModernBertModel._update_attention_mask} builds its {@code sliding_window_mask} ({@code distance <=
   * local_attention // 2} kept).
   */
  NDArray layerMask(int l, NDArray scoreMask, NDArray x) {
    return layerMask(l, scoreMask, (int) x.getShape().get(1), x.getManager());
  }

  /** {@link #layerMask(int, NDArray, NDArray)} for a width of {@code t} tokens: also the maps recomputed on demand. */
  NDArray layerMask(int l, NDArray scoreMask, int t, ai.djl.ndarray.NDManager manager) {
    if (parts.mask() != Parts.Mask.BIDIRECTIONAL || !parts.windowed(l)) {
      return scoreMask;
    }
    int reach = parts.window() / 2;
    float[] far = new float[t * t];
    for (int i = 0; i < t; i++) {
      for (int j = 0; j < t; j++) {
        far[i * t + j] = Math.abs(i - j) > reach ? PADDING_SCORE : 0f;
      }
    }
    NDArray band = manager.create(far, new Shape(1, 1, t, t));
    return scoreMask == null ? band : scoreMask.add(band); // (B|1, 1, T, T)
  }

  /**
   * The rows of a score mask for the picked queries: a causal mask has one row per query, (B|1, 1, T, T)
   * to (B, 1, M, T); a padding mask, (B, 1, 1, T), is the same for every query.
   */
  private static NDArray maskRows(NDArray scoreMask, NDArray pick) {
    if (scoreMask == null || scoreMask.getShape().get(2) == 1) {
      return scoreMask;
    }
    return pick.expandDims(1).matMul(scoreMask); // one-hot rows copy the mask's rows exactly
  }

  /**
   * The attention scores {@code q k^T / sqrt(dh) + mask}. Where {@code sqrt(dh)} is a power of two
   * (bert-base: 8) the scale is applied to q before the product: scaling by a power of two is exact and
   * commutes with every rounding, so the scores are the same bits, and a pass over (.., T, dh) replaces
   * one over (.., T, T).
   */
  static NDArray scores(NDArray q, NDArray k, NDArray scoreMask, int dh) {
    double scale = Math.sqrt(dh);
    boolean powerOfTwo = scale == Math.rint(scale) && Integer.bitCount((int) scale) == 1;
    NDArray root = Scalars.of(q, (float) scale); // lives until the backward pass (see Scalars)
    NDArray s = powerOfTwo
        ? q.div(root).matMul(k.transpose(0, 1, 3, 2))
        : q.matMul(k.transpose(0, 1, 3, 2)).div(root);
    if (scoreMask == null) {
      return s;
    }
    // s is the product's own new array: where nothing records gradients the mask is added in place, the
    // same sum without a (B, H, T, T) array more per layer (a causal model always has a mask)
    return recordsGradient(s) ? s.add(scoreMask) : s.addi(scoreMask);
  }

  /** Word + position + token-type embeddings, then LayerNorm: (B, T) ids to (B, T, d). */
  NDArray embed(NDArray ids, NDArray segments, Hooks hooks) {
    long t = ids.getShape().get(1);
    // DJL attaches an op's result to its first operand's manager: gather into the call's scope, or
    // every array downstream would belong to the weights and outlive the call.
    NDManager scope = ids.getManager();
    NDArray positions = positionIds(ids);
    NDArray x = w.wordEmbeddings.get(scope, new NDIndex("{}", ids)); // (B, T, e)
    if (w.positionEmbeddings != null) { // rotary models add no positions here: they turn q and k
      x = x.add(w.positionEmbeddings.get(scope, new NDIndex("{}", positions)));
    }
    if (parts.embeddingScale() != 1) { // Gemma: times sqrt(hidden_size), a float32
      x = x.mul(Scalars.of(x, (float) parts.embeddingScale()));
    }
    if (w.tokenTypeEmbeddings != null) {
      x = x.add(w.tokenTypeEmbeddings.get(scope, new NDIndex("{}", segments)));
    }
    if (w.embLnWeight != null) {
      x = layerNorm(x, w.embLnWeight, w.embLnBias, c.embeddingSize());
    }
    if (w.embProjWeight != null) {
      x = dense(x, w.embProjWeight, w.embProjBias); // (B, T, e) to (B, T, d)
    }
    return hooks.at(HookPoint.embed(), finite(x, 0));
  }

  /**
   * Position ids: {@code 0 .. T-1}, or for RoBERTa and XLM-R Hugging Face's {@code
   * create_position_ids_from_input_ids}: the n-th token that is not the padding id gets {@code pad + n}
   * (the first {@code pad + 1}), a padding id itself gets {@code pad}. Text never holds the padding id
   * unless it is typed ({@code <pad>}); a batch's own padding, past each input's end, is masked anyway.
   */
  private NDArray positionIds(NDArray ids) {
    long t = ids.getShape().get(1);
    NDManager scope = ids.getManager();
    if (c.positionOffset() == 0) {
      return scope.arange(0, (int) t).expandDims(0); // (1, T)
    }
    NDArray pad = scope.create((long) (c.positionOffset() - 1));
    NDArray real = ids.neq(pad).toType(ai.djl.ndarray.types.DataType.INT64, false); // (B, T)
    return real.cumSum(1).mul(real).add(pad); // (B, T)
  }

  /** Runs layers {@code from} (inclusive) to {@code to} (exclusive) on {@code x} (B, T, d), for gradients. */
  NDArray encode(NDArray x, NDArray scoreMask, int from, int to, Hooks hooks) {
    for (int l = from; l < to; l++) {
      x = finite(layer(l, x, scoreMask, hooks), l + 1);
    }
    return x;
  }

  /**
   * Runs layers {@code from} to {@code to} like {@link #encode}, but each in its own scope that keeps
   * only the layer's output: holding every layer's intermediates until the call ends cost about 1 GB
   * for one 512-token input and 3 GB for a 128-token ablation batch. Whatever a hook keeps is copied
   * out to Java while the layer runs. Not for gradients, which need every intermediate.
   *
   * <p>A layer's input is freed once the next layer has it, unless it is the caller's own array: holding
   * every layer's input until the call ends was 22 x 17 MB of a TinyLlama at 2,048 tokens (docs/PERFORMANCE.md).
   */
  NDArray encodeLayerByLayer(NDArray x, NDArray scoreMask, int from, int to, Hooks hooks) {
    NDManager outer = x.getManager();
    for (int l = from; l < to; l++) {
      NDArray input = x;
      try (NDManager layerScope = outer.newSubManager()) {
        x.tempAttach(layerScope); // back to outer when the layer's scope closes
        NDArray next = layer(l, x, scoreMask, hooks); // x is every op's first operand: results land on layerScope
        finite(next, l + 1);
        next.attach(outer);
        x = next;
      }
      if (l > from && input != x) {
        input.close(); // an earlier layer's output, read by this layer only
      }
    }
    return x;
  }

  /** One encoder layer, post-LayerNorm: {@code resid = ln1(x + attn(x)); out = ln2(resid + ffn(resid))}. */
  NDArray layer(int l, NDArray x, NDArray scoreMask, Hooks hooks) {
    BertWeights.Layer p = w.layers[l];
    x = hooks.at(HookPoint.Kind.RESID_PRE, l, x);
    scoreMask = layerMask(l, scoreMask, x);
    if (parts.place() == Parts.NormPlace.PRE) {
      NDArray attnOut = hooks.at(HookPoint.Kind.ATTN_OUT, l,
          attention(l, p, layerNorm(x, p.ln1Weight(), p.ln1Bias()), scoreMask, hooks));
      NDArray resid = hooks.at(HookPoint.Kind.RESID_MID, l, plus(x, attnOut, HookPoint.of(HookPoint.Kind.ATTN_OUT, l), hooks));
      // GPT-NeoX's parallel residual: the MLP reads the layer's input, not resid_mid (x + attn + mlp)
      NDArray mlpIn = parts.residual() == Parts.Residual.PARALLEL ? x : resid;
      NDArray mlpOut = hooks.at(HookPoint.Kind.MLP_OUT, l, ffn(l, p, layerNorm(mlpIn, p.ln2Weight(), p.ln2Bias()), hooks));
      return hooks.at(HookPoint.Kind.RESID_POST, l, plus(resid, mlpOut, HookPoint.of(HookPoint.Kind.MLP_OUT, l), hooks));
    }
    NDArray attnOut = hooks.at(HookPoint.Kind.ATTN_OUT, l, attention(l, p, x, scoreMask, hooks));
    NDArray resid = hooks.at(HookPoint.Kind.RESID_MID, l,
        layerNorm(plus(x, attnOut, HookPoint.of(HookPoint.Kind.ATTN_OUT, l), hooks), p.ln1Weight(), p.ln1Bias()));
    NDArray mlpOut = hooks.at(HookPoint.Kind.MLP_OUT, l, ffn(l, p, resid, hooks));
    return hooks.at(HookPoint.Kind.RESID_POST, l,
        layerNorm(plus(resid, mlpOut, HookPoint.of(HookPoint.Kind.MLP_OUT, l), hooks), p.ln2Weight(), p.ln2Bias()));
  }

  /**
   * {@code stream + out}, the sum written into {@code out} where it is the sublayer's own new array: nothing is
   * hooked at its point {@code at} (no capture saw it, no intervention gave it) and nothing records gradients.
   * The same bits either way (IEEE addition commutes); a (B, T, d) array fewer per sum, and a new array's pages
   * are the dear part on a virtual machine that returns freed memory to its host (docs/PERFORMANCE.md).
   */
  private static NDArray plus(NDArray stream, NDArray out, HookPoint at, Hooks hooks) {
    return hooks.isActive(at) || recordsGradient(out) ? stream.add(out) : out.addi(stream);
  }

  /**
   * The output of layer {@code l} at a few tokens per batch row, {@code (B, T, d)} to {@code (B, M, d)}:
   * {@link #layer}'s equations with only the picked rows as queries. Output token j depends on every
   * input token through the keys and values, but only on its own query, attention output and
   * feed-forward, so the rest of {@link #layer}'s work is skipped: the Jacobian's one token per row
   * ({@link LayerJacobian}), and the last layer of a run that reads a few positions ({@link Engine#run}).
   * The picked rows are selected by products with one-hot rows, which copy them exactly, and every
   * later operation treats rows alone, so in the batch-invariant mode the result is bit for bit the
   * picked rows of {@link #layer}. Head masks act at {@code attn.hook_pattern} as in a run, on a
   * (B, H, M, T) pattern; no other point sees the narrowed shapes, so only head masks may be attached.
   *
   * @param pick (B, M, T): row m of batch row b is the one-hot indicator of the m-th token kept for it
   */
  NDArray layerAtTokens(int l, NDArray x, NDArray pick, NDArray scoreMask, Hooks hooks) {
    BertWeights.Layer p = w.layers[l];
    Shape s = x.getShape();
    long b = s.get(0);
    long t = s.get(1);
    long m = pick.getShape().get(1);
    int h = c.numAttentionHeads();
    int dh = c.headSize();
    boolean pre = parts.place() == Parts.NormPlace.PRE;
    scoreMask = layerMask(l, scoreMask, x);
    NDArray[] qkv = queriesKeysValues(l, p, pre ? layerNorm(x, p.ln1Weight(), p.ln1Bias()) : x); // 3 x (B, H, T, dh)
    NDArray q = pick.expandDims(1).matMul(qkv[0]); // (B, H, M, dh): the picked tokens' queries
    NDArray k = qkv[1]; // (B, H, T, dh)
    NDArray v = qkv[2]; // (B, H, T, dh)
    NDArray scores = scores(q, k, maskRows(scoreMask, pick), dh); // (B, H, M, T)
    NDArray pattern = hooks.at(HookPoint.Kind.ATTN_PATTERN, l, scores.softmax(-1)); // (B, H, M, T)
    NDArray z = pattern.matMul(v).transpose(0, 2, 1, 3).reshape(b, m, (long) h * dh); // (B, M, d)
    NDArray attnOut = dense(z, p.outWeight(), p.outBias()); // (B, M, d)
    NDArray xj = pick.matMul(x); // (B, M, d): the picked tokens' inputs, for the residual
    if (pre) {
      NDArray resid = xj.add(attnOut);
      NDArray mlpIn = parts.residual() == Parts.Residual.PARALLEL ? xj : resid;
      return resid.add(ffn(l, p, layerNorm(mlpIn, p.ln2Weight(), p.ln2Bias()), hooks)); // (B, M, d)
    }
    NDArray resid = layerNorm(xj.add(attnOut), p.ln1Weight(), p.ln1Bias());
    NDArray mlpOut = ffn(l, p, resid, hooks);
    return layerNorm(resid.add(mlpOut), p.ln2Weight(), p.ln2Bias()); // (B, M, d)
  }

  /**
   * Layer {@code l} up to its attention pattern and values, and no further: all a run needs of its last
   * layer when only the maps and what comes from them (value norms, norm maps) are kept ({@link
   * Engine#run}); the rest of the layer, three quarters of its products, is skipped.
   */
  void attentionMaps(int l, NDArray x, NDArray scoreMask, Hooks hooks) {
    BertWeights.Layer p = w.layers[l];
    NDArray in = hooks.at(HookPoint.Kind.RESID_PRE, l, x); // as in layer()
    NDArray[] pv = pattern(l, p, parts.place() == Parts.NormPlace.PRE ? layerNorm(in, p.ln1Weight(), p.ln1Bias()) : in,
        layerMask(l, scoreMask, in), hooks);
    // what the run keeps of this layer: its maps and values (the layer's output is never computed)
    finite(pv[0], l + 1);
    finite(pv[1], l + 1);
  }

  /** {@code {pattern, v}} of layer {@code l}: (B, H, T, T) and (B, H, T, dh), through their hook points. */
  private NDArray[] pattern(int l, BertWeights.Layer p, NDArray x, NDArray scoreMask, Hooks hooks) {
    int dh = c.headSize();
    NDArray[] qkv = queriesKeysValues(l, p, x);
    NDArray q = hooks.at(HookPoint.Kind.ATTN_Q, l, qkv[0]); // (B, H, T, dh)
    NDArray k = hooks.at(HookPoint.Kind.ATTN_K, l, qkv[1]); // (B, H, T, dh)
    NDArray v = hooks.at(HookPoint.Kind.ATTN_V, l, qkv[2]); // (B, H, T, dh)

    NDArray scores = hooks.at(HookPoint.Kind.ATTN_SCORES, l, scores(q, k, scoreMask, dh)); // (B, H, T, T)
    NDArray computed = scores.softmax(-1); // (B, H, T, T)
    readChunks(hooks, l, scores, computed, true);
    NDArray pattern = hooks.at(HookPoint.Kind.ATTN_PATTERN, l, computed);
    // after the interventions at the pattern, the scores are no longer what it is the softmax of
    readChunks(hooks, l, pattern == computed ? scores : null, pattern, false);
    return new NDArray[] {pattern, v};
  }

  /** Hands a whole layer's scores and pattern to what reads them in chunks of heads ({@link Hooks#patternChunks}). */
  private void readChunks(Hooks hooks, int l, NDArray scores, NDArray pattern, boolean before) {
    List<Hooks.PatternChunks> readers = hooks.patternChunks(l).stream()
        .filter(r -> r.beforeInterventions() == before).toList();
    if (readers.isEmpty()) {
      return;
    }
    Shape s = pattern.getShape();
    int h = (int) s.get(1);
    int per = headsPerChunk(s.get(0), s.get(2), h);
    for (int h0 = 0; h0 < h; h0 += per) {
      int h1 = Math.min(h, h0 + per);
      try (NDManager chunk = pattern.getManager().newSubManager()) {
        NDIndex heads = new NDIndex(":, " + h0 + ":" + h1);
        NDArray p = pattern.get(heads);
        p.attach(chunk);
        NDArray sc = null;
        if (scores != null) {
          sc = scores.get(heads);
          sc.attach(chunk);
        }
        for (Hooks.PatternChunks r : readers) {
          r.accept(sc, p, h0, 0, (int) s.get(2), h1 == h);
        }
      }
    }
  }

  /**
   * Heads per chunk of a layer computed a few heads at a time: about 1M cells (4 MB) of (B, c, T, T) scores, four
   * heads at 512 tokens, one head (in chunks of rows, {@link #rowsPerChunk}) at 2,048. Arrays of that size come back
   * from the allocator's free lists; at 4M cells (16 MB, a Pythia-160M's or a Qwen2.5-0.5B's whole layer at 512
   * tokens) the scores, the softmax and the entropy's product were often fresh pages from the kernel, and the
   * forward 10% (Qwen) to 26% (Pythia) slower (docs/PERFORMANCE.md, "Warm and cold").
   */
  static int headsPerChunk(long batch, long tokens, int heads) {
    long cells = batch * tokens * tokens;
    return (int) Math.max(1, Math.min(heads, chunkCells / Math.max(1, cells)));
  }

  /** The cells of scores a chunk of heads may hold ({@link Engine#attentionChunkCells}). */
  static volatile long chunkCells = 1L << 20;

  /**
   * Whether layer {@code l}'s attention is computed a few heads at a time: when something reads its pattern in
   * chunks (a trace of summaries) and nothing else sees the whole scores or pattern (no capture, no
   * intervention there, no gradient). The per-head products are of the shapes of the batched ones, and
   * mask and softmax act per element and per row, so the result is the batched computation's where the
   * products are batch-invariant (as for the maps recomputed on demand); the layer then never holds its
   * (B, H, T, T) scores and pattern (1 GB at 2,048 tokens and 32 heads).
   */
  private static boolean chunked(int l, Hooks hooks, NDArray x) {
    return !hooks.patternChunks(l).isEmpty() && !hooks.isActive(HookPoint.of(HookPoint.Kind.ATTN_SCORES, l))
        && !hooks.isActive(HookPoint.pattern(l)) && !recordsGradient(x);
  }

  /**
   * {@code z} of layer {@code l}, (B, H, T, dh), computed a few heads and query rows at a time ({@link #chunked}).
   * A chunk of rows {@code r0 .. r1 - 1} of a causal layer (no window) reads only keys {@code 0 .. r1 - 1}: every
   * later key's score is masked in those rows, its weight exactly 0, so about half the scores, softmax and summaries
   * of a long input are never computed. The scores of the keys read are those of the whole product (each a dot
   * product of dh terms), and their softmax is the whole row's: the row's max and its sum are the same with the
   * masked keys left out, whose exp is exactly 0. The weighted values read the chunks' patterns put back together
   * with those zeros, a product of the same shapes as the whole layer's: a product over fewer keys may split its
   * sum otherwise and round otherwise (measured on this AMD machine: a few thousand cells per head at 2,048
   * tokens in chunks of 256 rows), and one of fewer rows was slower (M = 512 by K = 2,048 by N = 64).
   */
  private NDArray chunkedAttention(int l, BertWeights.Layer p, NDArray x, NDArray scoreMask, Hooks hooks) {
    int dh = c.headSize();
    NDArray[] qkv = queriesKeysValues(l, p, x);
    NDArray q = hooks.at(HookPoint.Kind.ATTN_Q, l, qkv[0]); // (B, H, T, dh)
    NDArray k = hooks.at(HookPoint.Kind.ATTN_K, l, qkv[1]); // (B, H, T, dh)
    NDArray v = hooks.at(HookPoint.Kind.ATTN_V, l, qkv[2]); // (B, H, T, dh)
    Shape s = q.getShape();
    int h = (int) s.get(1);
    int t = (int) s.get(2);
    int per = headsPerChunk(s.get(0), t, h);
    int rows = rowsPerChunk(s.get(0), t, per);
    // a causal mask without a window, (B|1, 1, T, T): keys after a chunk's last query are masked in all its rows
    boolean prefix = parts.mask() == Parts.Mask.CAUSAL && parts.window() == 0 && scoreMask != null
        && scoreMask.getShape().get(2) == t;
    // and no padding (the mask's last row, which every padded key darkens in a padded batch, all 0): the keys before
    // a chunk's first query are seen by all its rows, so only the chunk's diagonal block needs the mask
    boolean onlyCausal = prefix && rows < t && unpadded(scoreMask, t);
    List<Hooks.PatternChunks> readers = hooks.patternChunks(l);
    ai.djl.ndarray.NDList zs = new ai.djl.ndarray.NDList();
    // where chunks of rows read fewer keys than T, their patterns are put together in one (B, c, T, T) array for the
    // weighted values, made once per layer: a chunk writes its rows' first keys only, so the later keys stay 0
    NDArray whole = prefix && rows < t ? q.getManager().zeros(new Shape(s.get(0), per, t, t)) : null;
    for (int h0 = 0; h0 < h; h0 += per) {
      int h1 = Math.min(h, h0 + per);
      NDArray vc = v.get(new NDIndex(":, " + h0 + ":" + h1)); // (B, c, T, dh)
      ai.djl.ndarray.NDList zRows = new ai.djl.ndarray.NDList();
      NDArray heads = whole == null || h1 - h0 == per ? whole : whole.get(new NDIndex(":, 0:" + (h1 - h0)));
      for (int r0 = 0; r0 < t; r0 += rows) {
        int r1 = Math.min(t, r0 + rows);
        int keys = prefix ? r1 : t;
        try (NDManager chunk = q.getManager().newSubManager()) {
          NDArray qc = q.get(new NDIndex(":, " + h0 + ":" + h1 + ", " + r0 + ":" + r1));
          qc.attach(chunk); // results below have qc (or its products) as first operand: they land in chunk
          NDArray kc = k.get(new NDIndex(":, " + h0 + ":" + h1 + ", 0:" + keys));
          kc.attach(chunk);
          NDArray mc = scoreMask;
          if (scoreMask != null && (rows < t || keys < t)) {
            mc = scoreMask.getShape().get(2) == 1 ? scoreMask.get(new NDIndex(":, :, :, 0:" + keys))
                : scoreMask.get(new NDIndex(":, :, " + r0 + ":" + r1 + ", 0:" + keys));
            mc.attach(chunk);
          }
          NDArray scores;
          if (onlyCausal && r0 > 0) {
            // the keys before r0 are unmasked in every row of the chunk (their mask is 0, and s + 0 is s but for
            // the sign of a zero score, which no softmax, max or sum sees): the mask is added to the diagonal
            // block only, in place through a view, a pass over R x R cells instead of R x r1 (docs/PERFORMANCE.md)
            scores = scores(qc, kc, null, dh); // (B, c, R, keys)
            NDIndex diagonal = new NDIndex(":, :, :, " + r0 + ":" + keys);
            scores.get(diagonal).addi(mc.get(diagonal));
          } else {
            scores = scores(qc, kc, mc, dh); // (B, c, R, keys)
          }
          NDArray pattern = scores.softmax(-1);
          for (Hooks.PatternChunks r : readers) {
            r.accept(scores, pattern, h0, r0, t, h1 == h && r1 == t);
          }
          if (heads != null) {
            heads.set(new NDIndex(":, :, " + r0 + ":" + r1 + ", 0:" + keys), pattern);
          } else {
            NDArray z = pattern.matMul(vc); // (B, c, R, dh)
            z.attach(q.getManager());
            zRows.add(z);
          }
        }
      }
      if (heads != null) {
        zs.add(heads.matMul(vc)); // (B, c, T, dh): the product of the whole layer's shapes
      } else {
        zs.add(zRows.size() == 1 ? zRows.get(0) : ai.djl.ndarray.NDArrays.concat(zRows, 2));
      }
      vc.close();
    }
    return zs.size() == 1 ? zs.get(0) : ai.djl.ndarray.NDArrays.concat(zs, 1); // (B, H, T, dh)
  }

  /** Whether a causal score mask (B|1, 1, T, T) holds no padded key: its last row, which sees every key, is all 0. */
  private static boolean unpadded(NDArray causalMask, int t) {
    try (NDArray last = causalMask.get(new NDIndex(":, :, " + (t - 1))); NDArray least = last.min()) {
      return least.getFloat() == 0f;
    }
  }

  /**
   * Query rows per chunk of a layer computed a chunk at a time: about {@link #rowCells} cells of (B, c, R, T)
   * scores (1M cells, 4 MB: 512 rows of one head at 2,048 tokens), and never fewer than {@link #MIN_CHUNK_ROWS};
   * only where a chunk holds a single head (long inputs). Four chunks of rows per head at 2,048 tokens, the causal
   * chunks skipping three eighths of the square. Chunks of 1,024 rows (8 MB arrays) were slower on a quiet machine:
   * their arrays came back from the kernel as fresh pages in every chunk (the scores' product, the softmax and the
   * entropy's product 17-19 ms each against 0.3-1 ms for the 4 MB ones, which the allocator reused;
   * docs/PERFORMANCE.md, "Fresh pages"). Under a load of 15 on 2 cores, an earlier measurement found the opposite
   * (many small operations waiting for their second thread).
   */
  static int rowsPerChunk(long batch, long tokens, int heads) {
    if (heads > 1) {
      // several heads fit in a chunk (512 tokens): rows are not split; measured, chunks of 256 rows of 14 heads made
      // Qwen2.5-0.5B's shape at 512 tokens 37% slower in CPU seconds (17.7 s against 12.9 s, same load)
      return (int) tokens;
    }
    long rows = Math.min(rowCells, chunkCells) / Math.max(1, batch * heads * tokens);
    // a multiple of 64 rows: the thumbnails' blocks of rows (T / 128 rows where 128 divides T) then end at a chunk's
    // end, and each block's max is one strided reduction instead of one per block
    rows = rows >= 64 ? rows - rows % 64 : rows;
    return (int) Math.min(tokens, Math.max(MIN_CHUNK_ROWS, rows));
  }

  /** The cells of scores a chunk of rows may hold (no more than {@link #chunkCells}, which tests set to 1). */
  static volatile long rowCells = 1L << 20;

  /**
   * The fewest query rows a chunk holds: a chunk's products then have at least 16 x 16 x dh multiply-adds per head
   * (2,048 for the tests' dh of 8; 16,384 at dh 64), as the whole layer's do at 16 tokens or more, and go to the same
   * kernels: libtorch computes a batched product of fewer than 400 with a loop of its own, whose sums round
   * otherwise (one-row chunks of a 9-token input changed a thumbnail's last bit).
   */
  static final int MIN_CHUNK_ROWS = 16;

  /**
   * Every query head's queries, keys and values, each (B, H, T, dh). BERT's kin and GPT-2: one fused
   * product split three ways. The rotary decoders: the fused product of ((H + 2K) dh) columns split into
   * H query heads and K key/value heads, queries and keys turned by their positions ({@link Rotary}), then
   * each key/value head repeated for the {@code H / K} query heads that share it (transformers' {@code
   * repeat_kv}), so that every point downstream sees one map, key and value per query head.
   */
  private NDArray[] queriesKeysValues(int l, BertWeights.Layer p, NDArray x) {
    Shape s = x.getShape();
    long b = s.get(0);
    long t = s.get(1);
    int h = c.numAttentionHeads();
    int dh = c.headSize();
    if (!parts.rotaryDecoder()) {
      NDArray qkv = dense(x, p.qkvWeight(), p.qkvBias()) // (B, T, 3d)
          .reshape(b, t, 3, h, dh)
          .transpose(2, 0, 3, 1, 4); // (3, B, H, T, dh)
      return new NDArray[] {qkv.get(0), qkv.get(1), qkv.get(2)};
    }
    int kv = parts.keyValueHeads();
    NDArray qkv = dense(x, p.qkvWeight(), p.qkvBias()); // (B, T, (H + 2K) dh)
    long qw = (long) h * dh;
    long kw = (long) kv * dh;
    NDArray q = qkv.get(new NDIndex(":, :, 0:" + qw)).reshape(b, t, h, dh).transpose(0, 2, 1, 3); // (B, H, T, dh)
    NDArray k = qkv.get(new NDIndex(":, :, " + qw + ":" + (qw + kw))).reshape(b, t, kv, dh).transpose(0, 2, 1, 3); // (B, K, T, dh)
    NDArray v = qkv.get(new NDIndex(":, :, " + (qw + kw) + ":")).reshape(b, t, kv, dh).transpose(0, 2, 1, 3); // (B, K, T, dh)
    q = rotary[l].apply(q);
    k = rotary[l].apply(k);
    return new NDArray[] {q, shared(k, h), shared(v, h)};
  }

  /** Key/value heads (B, K, T, dh) repeated for their query heads: head g serves query heads g r .. g r + r - 1. */
  private static NDArray shared(NDArray a, int heads) {
    Shape s = a.getShape();
    long kv = s.get(1);
    if (kv == heads) {
      return a;
    }
    long r = heads / kv;
    return a.expandDims(2).broadcast(new Shape(s.get(0), kv, r, s.get(2), s.get(3)))
        .reshape(s.get(0), heads, s.get(2), s.get(3)); // (B, H, T, dh)
  }

  private NDArray attention(int l, BertWeights.Layer p, NDArray x, NDArray scoreMask, Hooks hooks) {
    Shape s = x.getShape();
    long b = s.get(0);
    long t = s.get(1);
    NDArray z;
    if (chunked(l, hooks, x)) {
      z = chunkedAttention(l, p, x, scoreMask, hooks);
    } else {
      NDArray[] pv = pattern(l, p, x, scoreMask, hooks);
      z = pv[0].matMul(pv[1]);
    }
    z = hooks.at(HookPoint.Kind.ATTN_Z, l, z); // (B, H, T, dh)

    HookPoint resultPoint = HookPoint.of(HookPoint.Kind.ATTN_RESULT, l);
    if (hooks.isActive(resultPoint)) {
      // each head's own output z^h W_O^h, summed afterwards: only when someone looks at it
      NDArray result = hooks.at(resultPoint, w.transformedValues(l, z).transpose(0, 2, 1, 3)); // (B, T, H, d)
      NDArray summed = result.sum(new int[] {2}); // (B, T, d)
      return p.outBias() == null ? summed : summed.add(p.outBias());
    }
    // (B, T, H dh): the hidden size, unless head_dim says otherwise (Gemma 7B), and o_proj maps it back to d
    NDArray merged = z.transpose(0, 2, 1, 3).reshape(b, t, (long) c.numAttentionHeads() * c.headSize());
    return dense(merged, p.outWeight(), p.outBias()); // (B, T, d)
  }

  /**
   * The MLP of layer {@code l} on x (B, T, d). A long input's MLP runs a chunk of token rows at a time where
   * nothing hooks inside it and nothing records gradients ({@link #mlpRowsPerChunk}): each row's output reads
   * only its own row, so only the products' row count changes (the same bits wherever the products are
   * batch-invariant, {@link Engine#batchInvariant}; within float32 rounding of a product elsewhere, as a batch of
   * inputs is). Its (B, R, f) arrays then stay under glibc's largest mmap threshold (32 MB) and come back from the
   * allocator's free lists, where a TinyLlama's (1, 2,048, 11,264) product (92 MB) and its activations were fresh
   * pages from the kernel in every layer: about 10 microseconds a page on the virtual machines HeadScope is tested
   * on, a third of a second per layer (docs/PERFORMANCE.md).
   */
  private NDArray ffn(int l, BertWeights.Layer p, NDArray x, Hooks hooks) {
    Shape s = x.getShape();
    int rows = mlpRowsPerChunk(s.get(0), s.get(1), parts.gated() ? 2L * c.intermediateSize() : c.intermediateSize());
    if (rows >= s.get(1) || hooks.isActive(HookPoint.of(HookPoint.Kind.MLP_PRE, l))
        || hooks.isActive(HookPoint.of(HookPoint.Kind.MLP_POST, l)) || recordsGradient(x)) {
      return ffnRows(l, p, x, hooks);
    }
    NDManager home = x.getManager();
    ai.djl.ndarray.NDList out = new ai.djl.ndarray.NDList();
    for (long r0 = 0; r0 < s.get(1); r0 += rows) {
      try (NDManager chunk = home.newSubManager()) {
        long r1 = Math.min(s.get(1), r0 + rows);
        // the chunk's rows as one (1, B R, d) block, as the whole input's (B, T, d) is: libtorch folds it into one
        // matrix product (a (1, R, d) slice of a longer input went to its batched product instead, 15% slower)
        NDArray xc = x.get(new NDIndex(":, " + r0 + ":" + r1)).reshape(1, s.get(0) * (r1 - r0), s.get(2));
        xc.attach(chunk); // every product below has xc (or what came of it) first: it lands in chunk
        NDArray y = ffnRows(l, p, xc, hooks).reshape(s.get(0), r1 - r0, -1);
        y.attach(home);
        out.add(y);
      }
    }
    NDArray whole = ai.djl.ndarray.NDArrays.concat(out, 1); // (B, T, d)
    out.close();
    return whole;
  }

  /**
   * Token rows per chunk of a long input's MLP: its widest arrays, (B, R, w) for w = 2f (the gated MLPs' gate
   * and up products, alive together) or f, held to {@link #mlpChunkCells}, in multiples of 64 rows; every row at once where
   * they fit (bert-base at 512 tokens, Qwen2.5-0.5B at 512, Pythia-160M at 2,048).
   */
  static int mlpRowsPerChunk(long batch, long tokens, long width) {
    long rows = mlpChunkCells / Math.max(1, batch * width);
    if (rows >= tokens) {
      return (int) tokens;
    }
    return (int) Math.max(1, rows >= 64 ? rows - rows % 64 : rows);
  }

  /**
   * Cells of a chunk's widest MLP array: 24 MB of float32, under glibc's 32 MB ceiling for its mmap threshold
   * ({@link Engine#mlpChunkCells}: tests set it small to run a tiny model's MLP a few rows at a time).
   */
  static volatile long mlpChunkCells = 6L << 20;

  private NDArray ffnRows(int l, BertWeights.Layer p, NDArray x, Hooks hooks) {
    if (parts.gated()) {
      // SwiGLU (LlamaMLP): down(silu(gate x) * up x); hook_pre carries the gate's input to SiLU, hook_post
      // the product that the down projection reads (TransformerLens's gated MLP)
      int f = c.intermediateSize();
      // two products, the gate's rows of the fused weight and then the up's (views, no copy): each output (B, T, f)
      // is half the fused one's (B, T, 2f), so a long input's chunk of rows stays in arrays the allocator reuses,
      // and SiLU and the products then read contiguous arrays instead of every other half-row of one (measured:
      // a 22-layer TinyLlama shape 5% faster at 2,048 tokens, docs/PERFORMANCE.md)
      NDArray gateWeight = p.ffnInWeight().get(new NDIndex("0:" + f)); // (f, d)
      NDArray upWeight = p.ffnInWeight().get(new NDIndex(f + ":")); // (f, d)
      NDArray gate = hooks.at(HookPoint.Kind.MLP_PRE, l, dense(x, gateWeight, null)); // (B, T, f)
      NDArray up = dense(x, upWeight, null); // (B, T, f)
      gateWeight.close();
      upWeight.close();
      // the activation's own new array takes the products where nothing records gradients (sigmoid's backward
      // reads its output): gate * s and s * gate are the same bits, and two (B, T, f) arrays fewer per layer
      boolean inPlace = !recordsGradient(gate);
      NDArray act;
      if (parts.mlp() == Parts.Mlp.GATED_SILU) {
        NDArray s = ai.djl.nn.Activation.sigmoid(gate);
        act = inPlace ? s.muli(gate) : gate.mul(s);
      } else {
        act = gelu(gate); // Gemma's GeGLU
      }
      NDArray post = hooks.at(HookPoint.Kind.MLP_POST, l, inPlace ? act.muli(up) : act.mul(up));
      return dense(post, p.ffnOutWeight(), null); // (B, T, d)
    }
    NDArray pre = hooks.at(HookPoint.Kind.MLP_PRE, l, dense(x, p.ffnInWeight(), p.ffnInBias())); // (B, T, f)
    NDArray post = hooks.at(HookPoint.Kind.MLP_POST, l, gelu(pre)); // (B, T, f)
    return dense(post, p.ffnOutWeight(), p.ffnOutBias()); // (B, T, d)
  }

  /**
   * {@code x W^T + b} for x (..., in) and W (out, in): the product, then the bias added on its own.
   * One formulation at every size, on purpose: in MKL's strict reproducible mode (MKL_CBWR, set by
   * {@code ./headscope} and the build) every row of this product comes out bit-identical however many
   * rows share the call, so an input gets the same numbers alone or in a batch of inputs of its length
   * ({@link Engine#batchInvariant}). Neither a fused {@code addmm} (it rounds the bias into the sum) nor
   * the weight-left order {@code (W x^T)^T} that this method used below 256 rows (5% faster for the
   * sweep's 192-row batches) keeps that: BatchInvarianceTest and AblationSweepTest catch both.
   */
  static NDArray dense(NDArray x, NDArray weight, NDArray bias) { // also EncoderDecoder's products
    NDArray product = Linear.linear(x, weight, null).singletonOrThrow();
    if (bias == null) {
      return product; // Llama's projections
    }
    // the bias added into the product's own new array where nothing records gradients: the same bits (an IEEE sum
    // is the same in place or not) and one array fewer, which a 512-token input's MLP had as fresh pages (Pythia-160M
    // shape 8% faster, docs/PERFORMANCE.md)
    return recordsGradient(product) ? product.add(bias) : product.addi(bias);
  }

  /**
   * The encoder's output as the heads read it: after the last layer of a pre-LayerNorm model comes its
   * final LayerNorm (GPT-2's {@code ln_f}); a post-LayerNorm model's last layer ends normalised already.
   * What {@link HookPoint#fin()} carries: Hugging Face's {@code last_hidden_state} in every family.
   */
  NDArray finalNorm(NDArray x) {
    return w.finalLnWeight == null ? x : layerNorm(x, w.finalLnWeight, w.finalLnBias);
  }

  /** Masked-LM logits for a set of hidden states, (M, d) to (M, V); the decoder is the word embeddings unless untied. */
  NDArray mlmLogits(NDArray hidden) {
    if (!w.hasMaskedLmHead()) {
      // a bare BertModel or a classifier: say so instead of failing inside a product with null weights
      throw new HeadScopeException("This model has no masked-LM head (it is a bare BertModel or a classifier), "
          + "so it cannot predict [MASK] tokens; attention maps still work.");
    }
    if (w.gptLmHead) {
      // GPT-2: the (tied) word embeddings on the normalised state (finalNorm); no transform, no bias; the
      // rotary decoders: the same, or their own lm_head when untied
      return finite(Linear.linear(hidden, w.decoder, null).singletonOrThrow(), HEAD); // (M, V)
    }
    NDArray t = gelu(dense(hidden, w.mlmDenseWeight, w.mlmDenseBias), headGelu); // (M, e)
    t = layerNorm(t, w.mlmLnWeight, w.mlmLnBias, c.embeddingSize());
    return finite(dense(t, w.decoder, w.mlmBias), HEAD); // (M, V)
  }

  /** The masked-LM head's activation alone (direct logit attribution freezes it as {@code act(z) / z}). */
  NDArray headActivation(NDArray z) {
    return gelu(z, headGelu);
  }

  /** Sequence-classification logits from the pooled {@code [CLS]} state, (B, T, d) to (B, labels). */
  NDArray classifierLogits(NDArray sequenceOutput) {
    if (!w.hasClassifier()) {
      throw new HeadScopeException("This model has no sequence-classification head, so it gives no class "
          + "probabilities.");
    }
    return finite(classify(pooled(sequenceOutput)), HEAD);
  }

  /** The pooler, {@code tanh(W_p h_[CLS] + b_p)}: (B, T, d) to (B, d). */
  NDArray pooled(NDArray sequenceOutput) {
    NDArray cls = sequenceOutput.get(new NDIndex(":, 0, :")); // (B, d)
    return dense(cls, w.poolerWeight, w.poolerBias).tanh();
  }

  /** The classifier on the pooled state, {@code W_c p + b_c}: (B, d) to (B, labels). */
  NDArray classify(NDArray pooled) {
    return dense(pooled, w.classifierWeight, w.classifierBias);
  }

  /** {@link #finite}'s place of a model head's logits (masked-LM, next-token or classifier). */
  static final int HEAD = -1;

  /**
   * {@code x}, after checking that every value is finite; else the one-line refusal naming where the
   * pass first went non-finite. Weights that are finite but huge (they pass the load check) overflow
   * float32 to Inf and then NaN, and a NaN compared with anything is false: ranks, argmaxes and
   * categories made from it would be claims about nothing. Checked after the embeddings and after
   * every layer, so the first place named is the first layer whose output is not finite. One reduction,
   * no copy: a sum is finite only if every term is (NaN and Inf propagate), so a finite sum settles it;
   * only a non-finite sum, which finite values near 3e38 can also give, asks max and min, which torch
   * computes propagating NaN (an Inf is the max or the min itself). Measured in docs/PERFORMANCE.md.
   *
   * @param layer 0 for the embeddings, 1.. for a layer's output (one-based, as the commands print
   *     layers), {@link #HEAD} for a head's logits
   */
  static NDArray finite(NDArray x, int layer) {
    try (NDArray sum = x.sum()) {
      if (Float.isFinite(sum.getFloat())) {
        return x;
      }
    }
    try (NDArray max = x.max(); NDArray min = x.min()) {
      if (Float.isFinite(max.getFloat()) && Float.isFinite(min.getFloat())) {
        return x; // finite values whose sum overflowed
      }
    }
    String where = layer == 0 ? "the embeddings" : layer == HEAD ? "the model's head (its logits)" : "layer " + layer;
    throw new HeadScopeException("The forward pass produced NaN/Inf at " + where + ": the model's numbers "
        + "overflow float32 (weights finite but too large?), so no result is given.");
  }

  /**
   * The family's norm over the hidden width: LayerNorm, or RMSNorm (whose {@code beta} is null); none where
   * {@code gamma} is null (ModernBERT's first {@code attn_norm}, an {@code nn.Identity}).
   */
  private NDArray layerNorm(NDArray x, NDArray gamma, NDArray beta) {
    if (gamma == null) {
      return x;
    }
    if (parts.rms()) {
      return rmsNorm(x, gamma);
    }
    return layerNorm(x, gamma, beta, c.hiddenSize());
  }

  /** {@code g * x / sqrt(mean(x^2) + eps)} over the last axis (LlamaRMSNorm: no mean subtracted, no bias). */
  private NDArray rmsNorm(NDArray x, NDArray gamma) {
    NDArray meanSquare = x.mul(x).mean(new int[] {-1}, true); // (.., 1)
    NDArray rms = meanSquare.add(Scalars.of(meanSquare, (float) c.layerNormEps())).sqrt();
    return x.div(rms).mul(gamma);
  }

  private NDArray layerNorm(NDArray x, NDArray gamma, NDArray beta, int width) {
    return LayerNorm.layerNorm(x, new Shape(width), gamma, beta, (float) c.layerNormEps()).singletonOrThrow();
  }

  private NDArray gelu(NDArray x) {
    return gelu(x, c.gelu());
  }

  /**
   * Whether autograd may record operations on {@code x}: torch's grad mode, which a gradient collector
   * turns on for its thread (inference runs with it off). Asked of torch because DJL's {@code
   * hasGradient}, and torch's {@code requires_grad} as DJL reads it, answer for leaves only.
   */
  private static boolean recordsGradient(NDArray x) {
    return !(x instanceof ai.djl.pytorch.engine.PtNDArray) || ai.djl.pytorch.jni.JniUtils.isGradMode();
  }

  /**
   * {@code x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))}, as Hugging Face's {@code NewGELUActivation} writes it,
   * but the cube as {@code (x x) x}: libtorch's {@code pow(x, 3)} took ten times a multiplication per element
   * (23 ms of a GPT-2's 400 at 512 tokens, {@code ./headscope bench families --profile}); the two differ by
   * float rounding only, well inside the families' 1e-5 checks.
   */
  private static NDArray geluTanh(NDArray x) {
    return x.mul(Scalars.of(x, 0.5f)).mul(x.mul(x).mul(x).mul(Scalars.of(x, 0.044715f)).add(x)
        .mul(Scalars.of(x, (float) Math.sqrt(2.0 / Math.PI))).tanh().add(Scalars.of(x, 1f)));
  }

  /**
   * {@link #geluTanh} with the same operations in the same order, the same bits, but two new arrays
   * instead of eight: torch has no fused tanh GELU through DJL, and allocating eight (B, T, f) arrays per
   * layer made a GPT-2 30-40% slower than bert-base's fused erf GELU. Only where nothing records
   * gradients (in-place changes would break the backward pass). The half is applied last: scaling by
   * 1/2 is exact, so {@code (x s) / 2} rounds as {@code (x / 2) s}.
   */
  private static NDArray geluTanhInPlace(NDArray x) {
    NDArray inner = x.mul(x);
    inner.muli(x).muli(Scalars.of(x, 0.044715f)).addi(x).muli(Scalars.of(x, (float) Math.sqrt(2.0 / Math.PI)));
    NDArray out = inner.tanh();
    inner.close();
    return out.addi(Scalars.of(x, 1f)).muli(x).muli(Scalars.of(x, 0.5f));
  }

  static NDArray gelu(NDArray x, BertConfig.Gelu kind) { // also EncoderDecoder's MLPs
    return switch (kind) {
      // x * Φ(x) = x/2 (1 + erf(x / √2)): torch's fused kernel computes exactly this
      case ERF -> ai.djl.nn.Activation.gelu(x);
      // x/2 (1 + tanh(√(2/π) (x + 0.044715 x³))), Google's original
      case TANH -> recordsGradient(x) ? geluTanh(x) : geluTanhInPlace(x);
    };
  }
}
