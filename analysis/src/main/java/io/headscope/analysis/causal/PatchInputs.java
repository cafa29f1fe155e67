package io.headscope.analysis.causal;

import io.headscope.analysis.ablation.MlmProbe;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.tokenizer.Encoding;
import java.util.Arrays;

/**
 * A clean and a corrupted input that patching can pair: the same number of tokens (a patched value is
 * the other run's value at the same position), and the metric read at the same positions of both: each
 * {@code [MASK]}, or for a causal model the last token (its next-token prediction).
 */
public record PatchInputs(Encoding clean, Encoding corrupted, int[] positions) {

  public PatchInputs {
    positions = positions.clone();
  }

  @Override
  public int[] positions() {
    return positions.clone();
  }

  public static PatchInputs of(BertModel model, String clean, String corrupted) {
    return of(model, model.encode(clean, null), model.encode(corrupted, null));
  }

  public static PatchInputs of(BertModel model, Encoding clean, Encoding corrupted) {
    if (clean.length() != corrupted.length()) {
      throw new HeadScopeException("The clean and the corrupted input must have the same number of tokens: clean ("
          + clean.length() + "): " + String.join(" ", clean.tokens()) + "; corrupted (" + corrupted.length() + "): "
          + String.join(" ", corrupted.tokens()));
    }
    int[] a = positions(model, clean);
    int[] b = positions(model, corrupted);
    if (!Arrays.equals(a, b)) {
      throw new HeadScopeException("The clean and the corrupted input must have their masks at the same positions: "
          + "clean: " + String.join(" ", clean.tokens()) + "; corrupted: " + String.join(" ", corrupted.tokens()));
    }
    return new PatchInputs(clean, corrupted, a);
  }

  private static int[] positions(BertModel model, Encoding e) {
    if (!model.config().family().masked()) {
      return MlmProbe.atLastToken(e).positions(); // the next token after the text
    }
    MlmProbe probe = MlmProbe.of(model, e, 0);
    if (probe.kind() != MlmProbe.Kind.MASKS) {
      String mask = model.tokenizer().vocabToken(model.tokenizer().maskId()).strip();
      throw new HeadScopeException("Patching measures the target at " + mask + ": give both inputs a " + mask + ".");
    }
    return probe.positions();
  }

  public int length() {
    return clean.length();
  }
}
