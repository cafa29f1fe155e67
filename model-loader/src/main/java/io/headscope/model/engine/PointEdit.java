package io.headscope.model.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Arrays;

/**
 * A declarative edit of the value at a hook point, at chosen inputs, heads and positions, computed in the engine's
 * tensors (no copy out to Java): what a TransformerLens hook function usually does, written as data. Outside the
 * chosen cells the value flows on unchanged, bit for bit (a {@code where}, not arithmetic).
 *
 * <p>Axes follow the point's shape in the engine ({@link HookPoint.Kind}): inputs are axis 0; heads are axis 1 of
 * q, k, v, z, the scores and the pattern (B, H, T, .) and axis 2 of {@code attn.hook_result} (B, T, H, d); positions
 * are the token axis (axis 2 of (B, H, T, .), for the scores and the pattern the query; axis 1 elsewhere).
 *
 * @param point where
 * @param op what: zero, scale by {@code value}, set to {@code value}, add {@code value}, the mean over the batch's
 *     inputs, or the value of another run ({@code source})
 * @param rows the inputs (0-based), or null for all
 * @param heads the heads (0-based), or null for all; only at points with a head axis
 * @param positions the token positions (0-based), or null for all
 * @param value the number of scale, set and add
 * @param source for {@link Op#PATCH}: the point's value in another run, with 1 row or the batch's rows
 */
public record PointEdit(HookPoint point, Op op, int[] rows, int[] heads, int[] positions, float value, Activation source)
    implements TensorIntervention {

  /** The edits. */
  public enum Op { ZERO, SCALE, SET, ADD, MEAN, PATCH }

  public PointEdit {
    if (point == null || op == null) {
      throw new IllegalArgumentException("no point or no op");
    }
    if ((op == Op.PATCH) != (source != null)) {
      throw new IllegalArgumentException(op == Op.PATCH ? "a patch needs its source" : "only a patch has a source");
    }
    if (heads != null && headAxis(point.kind()) < 0) {
      throw new io.headscope.model.core.HeadScopeException(point + " has no head axis: leave out the heads.");
    }
    rows = rows == null ? null : rows.clone();
    heads = heads == null ? null : heads.clone();
    positions = positions == null ? null : positions.clone();
  }

  /** The axis of the heads at a point in the engine's layout, or -1. */
  public static int headAxis(HookPoint.Kind k) {
    return switch (k) {
      case ATTN_Q, ATTN_K, ATTN_V, ATTN_Z, ATTN_SCORES, ATTN_PATTERN -> 1;
      case ATTN_RESULT -> 2;
      default -> -1;
    };
  }

  /** The axis of the token positions at a point in the engine's layout (for the scores and the pattern, the queries). */
  public static int positionAxis(HookPoint.Kind k) {
    return headAxis(k) == 1 ? 2 : 1;
  }

  @Override
  public void attach(Hooks hooks, Batch batch) {
    HookPoint p = point;
    hooks.intervene(p, this::apply);
  }

  NDArray apply(NDArray a) {
    long[] shape = a.getShape().getShape();
    NDManager m = a.getManager();
    boolean[] chosen = select(shape);
    NDArray where = m.create(chosen, new Shape(shape));
    NDArray edited = switch (op) {
      case ZERO -> a.zerosLike();
      case SCALE -> a.mul(Scalars.of(a, value));
      case SET -> a.zerosLike().add(Scalars.of(a, value));
      case ADD -> a.add(Scalars.of(a, value));
      case MEAN -> a.mean(new int[] {0}, true).broadcast(a.getShape());
      case PATCH -> source(m, shape);
    };
    return NDArrays.where(where, edited, a);
  }

  private NDArray source(NDManager m, long[] shape) {
    int[] s = source.shape();
    boolean fits = s.length == shape.length && (s[0] == 1 || s[0] == shape[0]);
    for (int i = 1; fits && i < s.length; i++) {
      fits = s[i] == shape[i];
    }
    if (!fits) {
      throw new io.headscope.model.core.HeadScopeException("The source of the patch at " + point + " has shape "
          + Arrays.toString(s) + " but the run's value has " + Arrays.toString(shape)
          + ": the two inputs must have the same number of tokens.");
    }
    long[] ls = Arrays.stream(s).asLongStream().toArray();
    return m.create(source.data(), new Shape(ls)).toType(DataType.FLOAT32, false).broadcast(new Shape(shape));
  }

  /** Which cells of a value of this shape the edit changes. */
  boolean[] select(long[] shape) {
    int n = 1;
    for (long d : shape) {
      n = Math.multiplyExact(n, (int) d);
    }
    int hAxis = headAxis(point.kind());
    int pAxis = positionAxis(point.kind());
    boolean[] rowOk = axis(rows, shape[0], "input");
    boolean[] headOk = hAxis < 0 ? null : axis(heads, shape[hAxis], "head");
    boolean[] posOk = axis(positions, shape[pAxis], "position");
    boolean[] out = new boolean[n];
    int[] index = new int[shape.length];
    for (int c = 0; c < n; c++) {
      out[c] = rowOk[index[0]] && (headOk == null || headOk[index[hAxis]]) && posOk[index[pAxis]];
      for (int ax = shape.length - 1; ax >= 0 && ++index[ax] == shape[ax]; ax--) {
        index[ax] = 0;
      }
    }
    return out;
  }

  private boolean[] axis(int[] chosen, long size, String what) {
    boolean[] ok = new boolean[(int) size];
    if (chosen == null) {
      Arrays.fill(ok, true);
      return ok;
    }
    for (int i : chosen) {
      if (i < 0 || i >= size) {
        throw new io.headscope.model.core.HeadScopeException("The edit at " + point + " names " + what + " " + i
            + ", but there are " + size + " (0-based).");
      }
      ok[i] = true;
    }
    return ok;
  }
}
