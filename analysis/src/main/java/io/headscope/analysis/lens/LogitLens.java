package io.headscope.analysis.lens;

import io.headscope.model.BertModel;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.engine.RunResult;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.List;

/**
 * The logit lens (nostalgebraist 2020): each layer's residual stream read by the model's own output head,
 * exactly as the head reads the last layer. The head is applied by the engine itself: a run that starts
 * at layer {@code L} (past the last) on the stream does no layer and goes straight to the final
 * LayerNorm (GPT-2's {@code ln_f}; nothing for a post-LayerNorm model) and the masked-LM head (BERT's
 * transform, GELU, LayerNorm, decoder and bias; GPT-2's tied decoder). So the last layer's lens is the
 * model's own prediction, bit for bit.
 */
public final class LogitLens {
  private final BertModel model;

  public LogitLens(BertModel model) {
    this.model = model;
  }

  /**
   * @param target the token to follow, or -1
   * @param contrast a second token to follow, or -1
   * @param top how many tokens to list per row
   */
  public LensResult run(Encoding input, long target, long contrast, int top) {
    int layers = model.config().numHiddenLayers();
    ReadPositions.of(model, input); // refuses a text with nothing to read in one line
    RunResult full = model.run(RunRequest.of(input)
        .capture(Capture.points(HookPoint.Kind.EMBED, HookPoint.Kind.RESID_POST)));
    List<LensRow> rows = new ArrayList<>();
    for (int l = 0; l <= layers; l++) {
      HookPoint p = l == 0 ? HookPoint.embed() : HookPoint.residPost(l - 1);
      for (RunResult.MaskDistribution d : head(input, full.cache().get(p))) {
        rows.add(row(l, p.name(), d, target, contrast, top));
      }
    }
    return new LensResult(input.tokens(), target, contrast, rows);
  }

  /** The output head's distributions at the read positions, for a stream (1, T, d) given as the head's input. */
  public List<RunResult.MaskDistribution> head(Encoding input, Activation stream) {
    int layers = model.config().numHiddenLayers();
    return model.run(RunRequest.of(input).startingAt(layers, stream)
        .read(Readouts.none().withMaskedLm(ReadPositions.readoutId(model)))).maskedLm().get(0);
  }

  private static LensRow row(int layer, String point, RunResult.MaskDistribution d, long target, long contrast,
      int top) {
    float[] p = d.probabilities();
    long[] best = TopTokens.of(p, top);
    float[] bestP = new float[best.length];
    for (int i = 0; i < best.length; i++) {
      bestP[i] = p[(int) best[i]];
    }
    return new LensRow(layer, point, d.position(), best, bestP, target < 0 ? 0 : TopTokens.rank(p, target),
        target < 0 ? Double.NaN : p[(int) target], contrast < 0 ? 0 : TopTokens.rank(p, contrast),
        contrast < 0 ? Double.NaN : p[(int) contrast]);
  }
}
