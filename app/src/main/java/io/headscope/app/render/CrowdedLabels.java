package io.headscope.app.render;

/**
 * Which dots of a scatter keep their label when dots crowd (the head map's layer numbers): dots are drawn
 * in order, each over the earlier ones, so a dot keeps its label only when no later dot lies within
 * {@code room} of it; the labels that stay are then at least {@code room} apart and never touch. A dot
 * without a label keeps its colour; the app names it on pointing.
 */
public final class CrowdedLabels {
  private CrowdedLabels() {}

  /**
   * @param xs the dots' centres, in drawing order
   * @param room the least distance between two labelled centres
   * @return for each dot whether its label is drawn
   */
  public static boolean[] labelled(double[] xs, double[] ys, double room) {
    int n = xs.length;
    boolean[] out = new boolean[n];
    for (int i = 0; i < n; i++) {
      out[i] = true;
      for (int j = i + 1; j < n; j++) {
        if (Math.hypot(xs[i] - xs[j], ys[i] - ys[j]) < room) {
          out[i] = false;
          break;
        }
      }
    }
    return out;
  }
}
