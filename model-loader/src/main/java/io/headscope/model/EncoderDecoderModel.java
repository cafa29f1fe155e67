package io.headscope.model;

import io.headscope.model.checkpoint.Safetensors;
import io.headscope.model.checkpoint.ShardedCheckpoint;
import io.headscope.model.checkpoint.WeightMemory;
import io.headscope.model.core.EncoderDecoderConfig;
import io.headscope.model.core.EncoderDecoderMask;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.EncoderDecoderEngine;
import io.headscope.model.engine.EncoderDecoderRun;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.tokenizer.Encoding;
import io.headscope.model.tokenizer.TextEncoder;
import io.headscope.model.tokenizer.TextEncoders;
import java.util.ArrayList;
import java.util.List;

/**
 * A loaded encoder-decoder (T5, BART): the service the commands and the app use for the three kinds of
 * maps and the next target token. The single-stack {@link BertModel} refuses these folders in one line
 * ({@link EncoderDecoderConfig#notOneStack}); this opens them.
 *
 * <p>The decoder reads the target as the tokenizer gives it, with its own special tokens and no
 * shifting, as BertViz's encoder-decoder example passes {@code tokenizer(target).input_ids} as {@code
 * decoder_input_ids}: T5's target ends with {@code </s>}, BART's is {@code <s> ... </s>}. Safe to call
 * from one thread at a time.
 */
public final class EncoderDecoderModel implements AutoCloseable {
  private final String name;
  private final EncoderDecoderEngine engine;
  private final TextEncoder tokenizer;
  /** Whether {@link #close} frees the engine and tokenizer; false for a {@link #borrowed} view. */
  private final boolean owner;

  private EncoderDecoderModel(String name, EncoderDecoderEngine engine, TextEncoder tokenizer, boolean owner) {
    this.name = name;
    this.engine = engine;
    this.tokenizer = tokenizer;
    this.owner = owner;
  }

  /**
   * A view of this loaded model whose {@link #close} frees nothing: what {@code headscope serve} lends each
   * request, as {@link BertModel#borrowed} does, so a command's try-with-resources leaves the model loaded.
   */
  public EncoderDecoderModel borrowed() {
    return new EncoderDecoderModel(name, engine, tokenizer, false);
  }

  /** Whether a model folder is an encoder-decoder (its {@code config.json}'s {@code model_type}). */
  public static boolean describes(ModelFiles files) {
    return EncoderDecoderConfig.describes(files.config());
  }

  public static EncoderDecoderModel load(ModelFiles files) {
    EncoderDecoderConfig config = EncoderDecoderConfig.read(files.config());
    boolean sharded = ShardedCheckpoint.isIndex(files.weights());
    List<Safetensors> shards = sharded ? ShardedCheckpoint.open(files.weights()) : List.of(Safetensors.open(files.weights()));
    EncoderDecoderEngine engine = null;
    try {
      WeightMemory.check(files.name(), WeightMemory.need(shards), WeightMemory.available());
      engine = EncoderDecoderEngine.load(config, shards, files.weights());
      TextEncoder tokenizer = TextEncoders.open(files.tokenizer(), config.maxTokens());
      if (tokenizer.vocabSize() > config.vocabSize()) {
        tokenizer.close();
        throw new HeadScopeException(files.tokenizer() + " has " + tokenizer.vocabSize()
            + " tokens but the model's vocabulary has only " + config.vocabSize() + ".");
      }
      return new EncoderDecoderModel(files.name(), engine, tokenizer, true);
    } catch (RuntimeException e) {
      if (engine != null) {
        engine.close();
      }
      throw e;
    } finally {
      shards.forEach(Safetensors::close);
    }
  }

  public String name() {
    return name;
  }

  public EncoderDecoderConfig config() {
    return engine.config();
  }

  public TextEncoder tokenizer() {
    return tokenizer;
  }

  /** A source or a target, with the tokenizer's own special tokens. */
  public Encoding encode(String text) {
    return tokenizer.encode(text);
  }

  /**
   * Every map of the three kinds for a source and a target, the mask's heads switched off in their kinds;
   * with {@code top > 0} the {@code top} most probable next tokens at every target position.
   */
  public EncoderDecoderTrace trace(String source, String target, EncoderDecoderMask mask, int top) {
    Encoding s = encode(source);
    Encoding t = encode(target);
    EncoderDecoderRun r = engine.run(s.ids(), t.ids(), mask, top > 0);
    List<List<MaskPrediction.TokenProbability>> next = new ArrayList<>();
    if (r.logits() != null) {
      for (float[] row : r.logits()) {
        next.add(top(row, top));
      }
    }
    return new EncoderDecoderTrace(name, s, t, r.encoder(), r.decoder(), r.cross(), next, mask);
  }

  /** The raw run (maps and, with {@code logits}, every target position's logits) for given ids. */
  public EncoderDecoderRun run(long[] source, long[] target, EncoderDecoderMask mask, boolean logits) {
    return engine.run(source, target, mask, logits);
  }

  /** The softmax of a row of logits, in double, and its {@code k} most probable tokens (ties: lower id first). */
  private List<MaskPrediction.TokenProbability> top(float[] logits, int k) {
    double max = Double.NEGATIVE_INFINITY;
    for (float v : logits) {
      max = Math.max(max, v);
    }
    double sum = 0;
    for (float v : logits) {
      sum += Math.exp(v - max);
    }
    Integer[] order = new Integer[logits.length];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    java.util.Arrays.sort(order, (a, b) -> logits[a] != logits[b] ? Float.compare(logits[b], logits[a]) : Integer.compare(a, b));
    List<MaskPrediction.TokenProbability> out = new ArrayList<>();
    for (int i = 0; i < Math.min(k, order.length); i++) {
      int id = order[i];
      out.add(new MaskPrediction.TokenProbability(tokenizer.vocabToken(id), id, (float) (Math.exp(logits[id] - max) / sum)));
    }
    return out;
  }

  @Override
  public void close() {
    if (!owner) {
      return;
    }
    tokenizer.close();
    engine.close();
  }
}
