package io.headscope.model;

import io.headscope.model.core.AttentionKind;
import io.headscope.model.core.EncoderDecoderMask;
import io.headscope.model.tokenizer.Encoding;
import java.util.List;

/**
 * One source and target through an encoder-decoder: the tokens of both, every map of the three kinds
 * ({@code [layer][head][query][key]}: encoder over the source, decoder over the target (causal), cross
 * from target queries to source keys), and the next target token predicted at every target position.
 *
 * @param model the model's name
 * @param source the source as the encoder reads it (the tokenizer's special tokens included)
 * @param target the target as the decoder reads it, tokenized with the same special tokens, not shifted
 * @param next at each target position, the most probable next tokens (empty when not asked)
 * @param mask the heads switched off in the run
 */
public record EncoderDecoderTrace(String model, Encoding source, Encoding target, float[][][][] encoder,
    float[][][][] decoder, float[][][][] cross, List<List<MaskPrediction.TokenProbability>> next,
    EncoderDecoderMask mask) {

  /** The maps of one kind. */
  public float[][][][] maps(AttentionKind kind) {
    return switch (kind) {
      case ENCODER -> encoder;
      case DECODER -> decoder;
      case CROSS -> cross;
    };
  }

  /** The query tokens of a kind's maps: the source's for the encoder, the target's for the decoder and cross. */
  public List<String> queryTokens(AttentionKind kind) {
    return kind == AttentionKind.ENCODER ? source.tokens() : target.tokens();
  }

  /** The key tokens of a kind's maps: the target's for the decoder, the source's for the encoder and cross. */
  public List<String> keyTokens(AttentionKind kind) {
    return kind == AttentionKind.DECODER ? target.tokens() : source.tokens();
  }
}
