package io.headscope.app.cli;

import io.headscope.model.EncoderDecoderModel;
import io.headscope.model.core.AttentionKind;
import io.headscope.model.core.EncoderDecoderConfig;
import io.headscope.model.core.EncoderDecoderMask;
import io.headscope.model.core.HeadMask;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.store.HeadSets;
import io.headscope.model.store.ModelFiles;
import picocli.CommandLine.Option;

/**
 * The options of the commands that read an encoder-decoder (T5, BART): the target the decoder reads and the
 * heads switched off in each kind of attention.
 */
final class EncoderDecoderOptions {
  @Option(names = "--target", paramLabel = "TEXT",
      description = "For an encoder-decoder (T5, BART): the target the decoder reads, tokenized with the tokenizer's "
          + "own special tokens and not shifted (as BertViz passes decoder_input_ids); --text is then the source. "
          + "(html --circuit: the word followed at [MASK].)")
  String target;

  @Option(names = "--disable-encoder", paramLabel = "HEADS",
      description = "Encoder-decoder: encoder self-attention heads to switch off, 1-based layer-head (5-4,8-*).")
  String encoder;

  @Option(names = "--disable-decoder", paramLabel = "HEADS",
      description = "Encoder-decoder: decoder self-attention heads to switch off, as --disable-encoder.")
  String decoder;

  @Option(names = "--disable-cross", paramLabel = "HEADS",
      description = "Encoder-decoder: cross-attention heads to switch off, as --disable-encoder.")
  String cross;

  boolean given() {
    return target != null;
  }

  /** Refuses the switches without a target, and an empty target. */
  void check() {
    if (target == null && (encoder != null || decoder != null || cross != null)) {
      throw new UsageException("--disable-encoder, --disable-decoder and --disable-cross go with --target "
          + "(an encoder-decoder's source and target).");
    }
    if (target != null) {
      ModelOptions.requireText(target, "--target");
    }
  }

  /**
   * The encoder-decoder of {@code --model}; a model that is not one is refused in one line (--target means
   * nothing to a single stack).
   */
  EncoderDecoderModel open(ModelOptions model) {
    EncoderDecoderModel served = ModelOptions.servedPair(model.model);
    if (served != null) {
      return served; // headscope serve's model, lent: its close frees nothing
    }
    ModelFiles files = model.files();
    if (!EncoderDecoderModel.describes(files)) {
      throw new UsageException("--target is for encoder-decoders (T5, BART); " + files.name() + " is a single-stack "
          + "model: give --text alone.");
    }
    return EncoderDecoderModel.load(files);
  }

  /** The heads switched off, per kind, in {@code mode}. */
  EncoderDecoderMask mask(EncoderDecoderConfig c, HeadMask.Mode mode) {
    EncoderDecoderMask m = EncoderDecoderMask.NONE;
    m = with(m, AttentionKind.ENCODER, "--disable-encoder", encoder, c.encoderLayers(), c.encoderHeads(), mode);
    m = with(m, AttentionKind.DECODER, "--disable-decoder", decoder, c.decoderLayers(), c.decoderHeads(), mode);
    return with(m, AttentionKind.CROSS, "--disable-cross", cross, c.decoderLayers(), c.decoderHeads(), mode);
  }

  private static EncoderDecoderMask with(EncoderDecoderMask m, AttentionKind kind, String option, String spec,
      int layers, int heads, HeadMask.Mode mode) {
    if (spec == null) {
      return m;
    }
    try {
      return m.with(kind, HeadMask.of(HeadSets.parse(spec, layers, heads, () -> HeadSets.read(HeadSets.standardFile())), mode));
    } catch (HeadScopeException e) {
      throw new UsageException(option + ": " + e.getMessage(), e);
    }
  }
}
