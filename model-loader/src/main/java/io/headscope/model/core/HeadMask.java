package io.headscope.model.core;

import java.util.Set;
import java.util.TreeSet;

/**
 * Which heads are switched off and how (METHODS.md, "Switching heads off").
 *
 * @param off the heads switched off (a whole layer is all of its heads)
 * @param mode {@link Mode#ZERO}: the head's probabilities are multiplied by 0 (Hugging Face
 *     {@code head_mask}); {@link Mode#UNIFORM}: its rows become 1/n over the real tokens (Kovaleva)
 */
public record HeadMask(Set<Head> off, Mode mode) {

  public enum Mode {
    ZERO,
    UNIFORM;

    public static Mode parse(String s) {
      return switch (s == null ? "" : s.trim().toLowerCase(java.util.Locale.ROOT)) {
        case "zero" -> ZERO;
        case "uniform" -> UNIFORM;
        default -> throw new HeadScopeException("Mode \"" + s + "\" is unknown: use zero or uniform.");
      };
    }
  }

  public static final HeadMask NONE = new HeadMask(Set.of(), Mode.ZERO);

  public HeadMask {
    off = java.util.Collections.unmodifiableSet(new TreeSet<>(off));
  }

  public static HeadMask of(Set<Head> off, Mode mode) {
    return new HeadMask(off, mode);
  }

  public boolean isEmpty() {
    return off.isEmpty();
  }

  public boolean isOff(Head h) {
    return off.contains(h);
  }

  public HeadMask toggled(Head h) {
    Set<Head> next = new TreeSet<>(off);
    if (!next.remove(h)) {
      next.add(h);
    }
    return new HeadMask(next, mode);
  }

  public HeadMask withMode(Mode m) {
    return new HeadMask(off, m);
  }

  /** Multipliers {@code m[layer][head]}: 1 keeps a head, 0 switches it off. */
  public float[][] multipliers(int layers, int heads) {
    float[][] m = new float[layers][heads];
    for (float[] row : m) {
      java.util.Arrays.fill(row, 1f);
    }
    for (Head h : off) {
      if (h.layer() >= layers || h.head() >= heads) {
        throw new HeadScopeException("There is no head " + h + " in a model of " + layers + " layers x " + heads + " heads.");
      }
      m[h.layer()][h.head()] = 0f;
    }
    return m;
  }
}
