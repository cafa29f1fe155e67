package io.headscope.analysis.causal;

import io.headscope.model.core.BertConfig;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.HookPoint;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where path patching's paths end: a head's query, key or value input ({@code L-H:q}), or with
 * {@link #LOGITS} the model's output read directly.
 *
 * @param layer 0-based, -1 for the logits
 * @param head 0-based, -1 for the logits
 * @param kind {@link HookPoint.Kind#ATTN_Q}, {@code ATTN_K} or {@code ATTN_V}; null for the logits
 */
public record PathReceiver(int layer, int head, HookPoint.Kind kind) {
  public static final PathReceiver LOGITS = new PathReceiver(-1, -1, null);
  private static final Pattern HEAD = Pattern.compile("(\\d+)-(\\d+):([qkvQKV])");

  public boolean logits() {
    return kind == null;
  }

  /** {@code logits}, or {@code L-H:q|k|v} 1-based. */
  public String label() {
    return logits() ? "logits" : (layer + 1) + "-" + (head + 1) + ":" + switch (kind) {
      case ATTN_Q -> "q";
      case ATTN_K -> "k";
      default -> "v";
    };
  }

  /**
   * {@code --receivers}: {@code logits}, or heads' inputs {@code L-H:q|k|v[,...]} (1-based), checked against
   * the model's shape; a head's input named twice counts once. The logits go alone: path patching into the
   * logits reads step (a)'s output, into heads runs a step (b), and the two are not one measurement.
   */
  public static List<PathReceiver> parse(String s, BertConfig config) {
    if (s == null || s.isBlank()) {
      throw new HeadScopeException("--receivers is empty: give logits or heads' inputs as L-H:q|k|v[,...].");
    }
    LinkedHashSet<PathReceiver> out = new LinkedHashSet<>();
    boolean logits = false;
    for (String part : s.split(",")) {
      String p = part.trim();
      if (p.equalsIgnoreCase("logits")) {
        logits = true;
        continue;
      }
      Matcher m = HEAD.matcher(p);
      if (!m.matches()) {
        throw new HeadScopeException("--receivers: \"" + p + "\" is neither logits nor a head's input L-H:q|k|v "
            + "(1-based, e.g. 9-6:q).");
      }
      int layer = Integer.parseInt(m.group(1));
      int head = Integer.parseInt(m.group(2));
      if (layer < 1 || layer > config.numHiddenLayers() || head < 1 || head > config.numAttentionHeads()) {
        throw new HeadScopeException("--receivers: head " + layer + "-" + head + " is not in this model (layers 1-"
            + config.numHiddenLayers() + ", heads 1-" + config.numAttentionHeads() + ").");
      }
      if (layer == 1) {
        throw new HeadScopeException("--receivers: " + p + " is in layer 1, and no sender head lies before it.");
      }
      HookPoint.Kind kind = switch (m.group(3).toLowerCase(Locale.ROOT)) {
        case "q" -> HookPoint.Kind.ATTN_Q;
        case "k" -> HookPoint.Kind.ATTN_K;
        default -> HookPoint.Kind.ATTN_V;
      };
      out.add(new PathReceiver(layer - 1, head - 1, kind));
    }
    if (logits && !out.isEmpty()) {
      throw new HeadScopeException("--receivers: logits goes alone, not with heads' inputs (" + s.trim() + ").");
    }
    return logits ? List.of(LOGITS) : new ArrayList<>(out);
  }
}
