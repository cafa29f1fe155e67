package io.headscope.analysis.causal;

import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.HookPoint;
import java.util.List;
import java.util.Locale;

/**
 * Where activation patching swaps a value: a head's output or its queries, keys or values (one cell per
 * head), or the residual stream or an MLP's output at one token (one cell per position).
 */
public enum PatchSite {
  /** A head's own output {@code z^h W_O^h}, {@code attn.hook_result}, (B, T, H, d). */
  HEAD(HookPoint.Kind.ATTN_RESULT, "head"),
  /** A head's queries, (B, H, T, dh). */
  Q(HookPoint.Kind.ATTN_Q, "q"),
  K(HookPoint.Kind.ATTN_K, "k"),
  V(HookPoint.Kind.ATTN_V, "v"),
  /** A layer's input at one token, (B, T, d). */
  RESID_PRE(HookPoint.Kind.RESID_PRE, "resid_pre"),
  RESID_MID(HookPoint.Kind.RESID_MID, "resid_mid"),
  RESID_POST(HookPoint.Kind.RESID_POST, "resid_post"),
  /** The feed-forward's output at one token, (B, T, d). */
  MLP(HookPoint.Kind.MLP_OUT, "mlp_out");

  private final HookPoint.Kind kind;
  private final String label;

  PatchSite(HookPoint.Kind kind, String label) {
    this.kind = kind;
    this.label = label;
  }

  public HookPoint.Kind kind() {
    return kind;
  }

  /** The name in CSV rows and messages: {@code head}, {@code resid_pre}, ... */
  public String label() {
    return label;
  }

  /** Whether a cell is a head (else a token position). */
  public boolean perHead() {
    return this == HEAD || this == Q || this == K || this == V;
  }

  /** {@code --by}'s value as sites: {@code resid} is all three residual streams, in forward order. */
  public static List<PatchSite> parse(String by) {
    return switch (by == null ? "head" : by.trim().toLowerCase(Locale.ROOT)) {
      case "head" -> List.of(HEAD);
      case "q" -> List.of(Q);
      case "k" -> List.of(K);
      case "v" -> List.of(V);
      case "resid" -> List.of(RESID_PRE, RESID_MID, RESID_POST);
      case "resid_pre", "resid-pre" -> List.of(RESID_PRE);
      case "resid_mid", "resid-mid" -> List.of(RESID_MID);
      case "resid_post", "resid-post" -> List.of(RESID_POST);
      case "mlp" -> List.of(MLP);
      default -> throw new HeadScopeException("--by \"" + by + "\" is unknown: use head, resid, q, k, v or mlp.");
    };
  }
}
