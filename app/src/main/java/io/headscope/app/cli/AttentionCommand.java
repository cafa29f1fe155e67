package io.headscope.app.cli;

import io.headscope.analysis.export.AttentionNpz;
import io.headscope.analysis.export.EncoderDecoderJson;
import io.headscope.model.EncoderDecoderModel;
import io.headscope.model.EncoderDecoderTrace;
import io.headscope.model.core.HeadMask;
import io.headscope.analysis.export.JsonExport;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.tokenizer.Encoding;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "attention", mixinStandardHelpOptions = true,
    description = "Every head's attention map and value-vector norms for one input, as JSON "
        + "(attention[layer][head][query][key], valueNorms[layer][head][token]; 0-based); with "
        + "--layer-norms also layerNorms[layer][query][key]; with --words the maps are over words. "
        + "--format npz --out FILE.npz writes the same float32 arrays for NumPy's np.load. "
        + "An encoder-decoder (T5, BART) takes --text SOURCE --target TARGET and gives tokens, ids (source), "
        + "target_tokens, target_ids, encoder_attention, decoder_attention (causal) and "
        + "cross_attention[layer][head][target query][source key]; with --format npz BertViz's arrays encoder_tokens, "
        + "decoder_tokens, encoder_attention, decoder_attention, cross_attention (html --arrays draws them).")
final class AttentionCommand implements Callable<Integer> {
  @Mixin TextOptions sentence;

  @Mixin JsonOutput output;

  @Mixin ModelOptions model;

  @Mixin EncoderDecoderOptions twoStacks;

  @Option(names = "--mode", defaultValue = "zero", paramLabel = "zero|uniform",
      description = "With --disable-encoder/--disable-decoder/--disable-cross: zero the heads' attention, or spread "
          + "it evenly over the keys each query sees.")
  String mode;

  @Option(names = "--layer-norms", description = "Also write each layer's norm map (Kobayashi et al.): "
      + "||sum_h A^h_ij f^h(x_j)||, how much token j moves token i through the whole attention layer.")
  boolean layerNorms;

  @Option(names = "--words", description = "Word-level maps (Clark et al.): attention to a word is the sum "
      + "over its wordpieces, from a word the mean; words are grouped at the ## continuation pieces, "
      + "[CLS] and [SEP] stay words. Adds words[] and wordOfToken[]; attention[l][h][word][word].")
  boolean words;

  @Option(names = "--format", paramLabel = "json|npz", defaultValue = "json",
      description = "json (default), or npz: NumPy's .npz of float32 arrays tokens, ids, attention (L, H, T, T), "
          + "value_norms (L, H, T) [, layer_norms, words, word_of_token]; binary, so only with --out.")
  String format;

  @Override
  public Integer call() {
    sentence.check();
    boolean npz = switch (format.toLowerCase(java.util.Locale.ROOT)) {
      case "json" -> false;
      case "npz" -> true;
      default -> throw new UsageException("--format \"" + format + "\" is unknown: use json or npz.");
    };
    if (npz && output.out == null && !Output.servingRequests()) {
      throw new UsageException("--format npz is binary: give --out FILE.npz (standard output takes the JSON).");
    }
    output.check();
    twoStacks.check();
    if (twoStacks.given()) {
      if (sentence.pair != null || layerNorms || words) {
        throw new UsageException("--target (an encoder-decoder's source and target) goes without --pair, "
            + "--layer-norms and --words.");
      }
      HeadMask.Mode off = UsageException.mode(mode);
      try (EncoderDecoderModel m = twoStacks.open(model)) {
        EncoderDecoderTrace t = m.trace(sentence.text, twoStacks.target, twoStacks.mask(m.config(), off), 0);
        Warnings.truncation(t.source());
        Warnings.truncation(t.target());
        if (npz) {
          output.write(o -> EncoderDecoderJson.npz(t, o), Output.Format.NPZ);
        } else {
          output.write(o -> EncoderDecoderJson.attention(t, o));
        }
      }
      return 0;
    }
    try (BertModel m = model.open()) {
      Encoding input = m.encode(sentence.text, sentence.pair);
      AttentionTrace t = m.trace(TraceRequest.of(input).layerNorms(layerNorms)).get(0);
      Warnings.truncation(t.encoding());
      if (npz) {
        output.write(o -> AttentionNpz.write(t, t.layerNorms(), words, o), Output.Format.NPZ);
      } else {
        output.write(o -> JsonExport.attention(t, t.layerNorms(), words, o));
      }
    }
    return 0;
  }
}
