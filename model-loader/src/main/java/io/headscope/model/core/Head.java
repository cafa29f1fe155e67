package io.headscope.model.core;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One attention head, 0-based inside the program; {@link #toString()} and {@link #parseList} use the
 * papers' 1-based {@code layer-head} names ({@code 5-4} is layer 5, head 4).
 */
public record Head(int layer, int head) implements Comparable<Head> {

  public Head {
    if (layer < 0 || head < 0) {
      throw new IllegalArgumentException("negative head index " + layer + "," + head);
    }
  }

  @Override
  public String toString() {
    return (layer + 1) + "-" + (head + 1);
  }

  @Override
  public int compareTo(Head o) {
    return layer != o.layer ? Integer.compare(layer, o.layer) : Integer.compare(head, o.head);
  }

  /**
   * Parses a comma-separated list such as {@code 5-4,8-10,7,3-*,L11}: a bare layer, {@code L-*} or
   * {@code L11} (the form saved head sets write) means every head of that layer. Checks every name
   * against the model's shape.
   */
  public static Set<Head> parseList(String spec, int layers, int heads) {
    Set<Head> out = new LinkedHashSet<>();
    if (spec == null || spec.isBlank()) {
      return out;
    }
    for (String raw : spec.split(",")) {
      String item = raw.trim();
      if (item.isEmpty()) {
        continue;
      }
      // "L11" names layer 11 as "11" does: the form HeadSets.describe writes and the papers use
      String name = item.length() > 1 && (item.charAt(0) == 'L' || item.charAt(0) == 'l')
          && Character.isDigit(item.charAt(1)) ? item.substring(1) : item;
      String[] parts = name.split("-", -1);
      if (parts.length > 2) {
        throw bad(item);
      }
      int layer = number(parts[0], item);
      if (layer < 1 || layer > layers) {
        throw new HeadScopeException(
            "There is no layer " + layer + " in \"" + item + "\": the model has layers 1 to " + layers + ".");
      }
      if (parts.length == 1 || parts[1].equals("*")) {
        for (int h = 0; h < heads; h++) {
          out.add(new Head(layer - 1, h));
        }
        continue;
      }
      int head = number(parts[1], item);
      if (head < 1 || head > heads) {
        throw new HeadScopeException(
            "There is no head " + item + ": each layer has heads 1 to " + heads + ".");
      }
      out.add(new Head(layer - 1, head - 1));
    }
    return out;
  }

  /** Every head of a model, layer by layer. */
  public static List<Head> all(int layers, int heads) {
    List<Head> out = new ArrayList<>(layers * heads);
    for (int l = 0; l < layers; l++) {
      for (int h = 0; h < heads; h++) {
        out.add(new Head(l, h));
      }
    }
    return out;
  }

  private static int number(String s, String item) {
    try {
      return Integer.parseInt(s.trim());
    } catch (NumberFormatException e) {
      throw bad(item);
    }
  }

  private static HeadScopeException bad(String item) {
    return new HeadScopeException(
        "\"" + item + "\" is not a head: write layer-head (1-based, e.g. 5-4), or a whole layer (7, L7 or 7-*).");
  }
}
