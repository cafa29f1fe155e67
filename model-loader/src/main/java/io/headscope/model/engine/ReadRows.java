package io.headscope.model.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.List;

/**
 * The few token rows a run reads from its last layer, when that is all anyone looks at: then the last
 * layer computes only those rows ({@link BertEncoder#layerAtTokens}) and the readouts read them from
 * the narrowed output. The sweeps read a masked word or two (or {@code [CLS]}) of each of hundreds of
 * variants, and their last layer is about a seventh of their work.
 *
 * <p>Only when nothing else can see the difference: no capture (a kept point would have the narrowed
 * shape), no intervention but head masks (they broadcast over query rows), no readout of every
 * {@code [MASK]}. Rows keep their positions' order; row {@code b} takes entry {@code b % k} of the
 * readouts' cycle ({@link Readouts}), after {@code [CLS]} when the classifier reads it, and repeats its
 * last position to fill the common width.
 */
final class ReadRows {
  private final List<int[]> picked;
  private final int rows;
  private final int width;
  private final Readouts narrowed;

  private ReadRows(List<int[]> picked, int rows, int width, Readouts narrowed) {
    this.picked = picked;
    this.rows = rows;
    this.width = width;
    this.narrowed = narrowed;
  }

  /** The rows a request reads, or null when it reads more or someone else looks at the last layer. */
  static ReadRows of(RunRequest r, int width) {
    Readouts ro = r.readouts();
    if (!r.captures().isEmpty() || ro.maskedLmMaskId() >= 0
        || !r.interventions().stream().allMatch(i -> i instanceof Intervention.HeadMasks)
        || (ro.comparisons() != null && ro.logProbPositions() != null)) {
      return null;
    }
    List<int[]> read = ro.comparisons() != null
        ? ro.comparisons().stream().map(Readouts.Comparison::positions).toList()
        : ro.logProbPositions() != null ? ro.logProbPositions()
        : ro.classifier() ? List.of(new int[0]) : null;
    if (read == null) {
      return null;
    }
    int first = ro.classifier() ? 1 : 0; // the pooler reads row 0: [CLS]
    int m = 0;
    for (int[] positions : read) {
      m = Math.max(m, first + positions.length);
    }
    if (m == 0 || m >= width) {
      return null; // nothing to gain
    }
    List<int[]> picked = new ArrayList<>();
    List<int[]> slots = new ArrayList<>();
    for (int[] positions : read) {
      int[] rowPick = new int[m];
      int[] rowSlots = new int[positions.length];
      for (int j = 0; j < m; j++) {
        int k = j - first;
        // [CLS] first for the classifier; a row with fewer positions than the widest repeats its last
        rowPick[j] = k < 0 || positions.length == 0 ? 0 : positions[Math.min(k, positions.length - 1)];
      }
      for (int j = 0; j < positions.length; j++) {
        rowSlots[j] = first + j;
      }
      picked.add(rowPick);
      slots.add(rowSlots);
    }
    Readouts narrowed = ro;
    if (ro.comparisons() != null) {
      List<Readouts.Comparison> c = new ArrayList<>();
      for (int i = 0; i < slots.size(); i++) {
        Readouts.Comparison old = ro.comparisons().get(i);
        c.add(new Readouts.Comparison(slots.get(i), old.targets(), old.reference(), old.contrasts()));
      }
      narrowed = ro.withComparisons(c);
    } else if (ro.logProbPositions() != null) {
      narrowed = ro.withLogProbs(slots);
    }
    return new ReadRows(picked, r.inputs().size(), width, narrowed);
  }

  /** The one-hot rows that pick them, (B, M, T). */
  NDArray pick(NDManager scope) {
    int m = picked.get(0).length;
    float[] flat = new float[rows * m * width];
    for (int b = 0; b < rows; b++) {
      int[] p = picked.get(b % picked.size());
      for (int j = 0; j < m; j++) {
        flat[(b * m + j) * width + p[j]] = 1f;
      }
    }
    return scope.create(flat, new Shape(rows, m, width));
  }

  /** The request's readouts, reading the picked rows' slots instead of the positions. */
  Readouts readouts() {
    return narrowed;
  }
}
