package io.headscope.analysis.causal;

import io.headscope.model.core.HeadScopeException;
import java.util.Locale;

/**
 * Which run is patched with which (Heimersheim and Nanda, "How to use and interpret activation patching",
 * 2024): denoising runs the corrupted input with one clean activation put back (is this site
 * <em>sufficient</em> to restore the behaviour?); noising runs the clean input with one corrupted
 * activation put in (is it <em>necessary</em>?).
 */
public enum PatchDirection {
  DENOISE,
  NOISE;

  public static PatchDirection parse(String s) {
    return switch (s == null ? "denoise" : s.trim().toLowerCase(Locale.ROOT)) {
      case "denoise", "denoising" -> DENOISE;
      case "noise", "noising" -> NOISE;
      default -> throw new HeadScopeException("--direction \"" + s + "\" is unknown: use denoise or noise.");
    };
  }

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
