package io.headscope.analysis.ablation;

import io.headscope.model.BertModel;
import io.headscope.model.core.HeadMask;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.Intervention;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.engine.RunResult;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The machinery of the fast sweeps ({@link AblationSweep}, {@link TaskSweep}): switching a head of
 * layer {@code l} off cannot change the layers below {@code l}, so the intact pass of a batch of inputs
 * is run once, keeping every layer's input, and all variants of layer {@code l} then run from there to
 * the top as one batch, one head-mask row per variant and input.
 *
 * <p>Rows of a layer's run are variant-major: row {@code v * n + i} is variant {@code v} of input
 * {@code i} (n inputs).
 */
final class LayerVariants {
  private final BertModel model;
  private final List<Encoding> inputs;
  private final RunResult intact;

  private LayerVariants(BertModel model, List<Encoding> inputs, RunResult intact) {
    this.model = model;
    this.inputs = List.copyOf(inputs);
    this.intact = intact;
  }

  /** Runs the intact pass of {@code inputs} (one batch), keeping every layer's input, with these readouts. */
  static LayerVariants start(BertModel model, List<Encoding> inputs, Readouts intactReadouts) {
    RunResult intact = model.run(RunRequest.of(inputs)
        .capture(Capture.points(HookPoint.Kind.RESID_PRE))
        .read(intactReadouts));
    return new LayerVariants(model, inputs, intact);
  }

  RunResult intact() {
    return intact;
  }

  /**
   * Runs every variant of layer {@code l} from that layer's kept input to the top.
   *
   * @param masks one {@code [layer][head]} multiplier table per variant (each differs from all ones only
   *     in layer {@code l} and above)
   */
  RunResult layer(int l, float[][][] masks, HeadMask.Mode mode, Readouts readouts) {
    int variants = masks.length;
    int n = inputs.size();
    float[][][] rows = new float[variants * n][][];
    List<Encoding> batch = new ArrayList<>(variants * n);
    for (int v = 0; v < variants; v++) {
      for (int i = 0; i < n; i++) {
        rows[v * n + i] = masks[v];
        batch.add(inputs.get(i));
      }
    }
    return model.run(RunRequest.of(batch)
        .startingAt(l, intact.cache().get(HookPoint.residPre(l)).repeatRows(variants))
        .intervene(new Intervention.HeadMasks(rows, mode))
        .read(readouts));
  }

  /**
   * The variants of the single-head sweep at layer {@code l}: variant {@code h} has head {@code h} of
   * layer {@code l} off; with {@code wholeLayer} a last variant has all of layer {@code l} off.
   */
  static float[][][] singleOff(int layers, int heads, int l, boolean wholeLayer) {
    int variants = heads + (wholeLayer ? 1 : 0);
    float[][][] m = new float[variants][layers][heads];
    for (float[][] variant : m) {
      for (float[] row : variant) {
        Arrays.fill(row, 1f);
      }
    }
    for (int h = 0; h < heads; h++) {
      m[h][l][h] = 0f;
    }
    if (wholeLayer) {
      Arrays.fill(m[heads][l], 0f);
    }
    return m;
  }
}
