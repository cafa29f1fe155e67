package io.headscope.model.encoderdecoders;

import java.nio.file.Path;

/** Tiny T5 and BART folders for the other modules' tests (the shapes of {@link EncoderDecoderFamiliesTest}). */
public final class EncoderDecoderFolders {
  private EncoderDecoderFolders() {}

  /** A source and target per type, with their ids worked out by hand from the hand-written tokenizers. */
  public static String source(String type) {
    return type.equals("bart") ? EncoderDecoderFamiliesTest.BART_SOURCE : HandT5Tokenizer.SOURCE;
  }

  public static String target(String type) {
    return type.equals("bart") ? EncoderDecoderFamiliesTest.BART_TARGET : HandT5Tokenizer.TARGET;
  }

  public static long[] sourceIds(String type) {
    return (type.equals("bart") ? EncoderDecoderFamiliesTest.BART_SOURCE_IDS : HandT5Tokenizer.SOURCE_IDS).clone();
  }

  public static long[] targetIds(String type) {
    return (type.equals("bart") ? EncoderDecoderFamiliesTest.BART_TARGET_IDS : HandT5Tokenizer.TARGET_IDS).clone();
  }

  /** {@code t5} (relu, tied, F32), {@code t5v11} (gated-gelu, untied, BF16) or {@code bart} (F16), into {@code dir}. */
  public static Path write(String type, Path dir, long seed) {
    return model(type, seed).writeTo(dir);
  }

  /**
   * The reference of {@link #write}'s model on {@link #sourceIds} and {@link #targetIds}: per kind (0 encoder, 1
   * decoder, 2 cross) the maps {@code [k][0]} and their error deviations {@code [k][1]}, {@code [layer][head][q][k]}.
   */
  public static double[][][][][][] reference(String type, long seed) {
    EncoderDecoderReference.Result r = EncoderDecoderReference.run(model(type, seed), sourceIds(type), targetIds(type));
    return new double[][][][][][] {{r.encoder(), r.encoderSigma()}, {r.decoder(), r.decoderSigma()},
        {r.cross(), r.crossSigma()}};
  }

  /** The reference's logits at every target position, {@code [T][V]}. */
  public static double[][] logits(String type, long seed) {
    return EncoderDecoderReference.run(model(type, seed), sourceIds(type), targetIds(type)).logits();
  }

  /** How many standard deviations a test allows ({@link EncoderDecoderReference#LAMBDA}). */
  public static final double LAMBDA = EncoderDecoderReference.LAMBDA;

  private static TinyEncoderDecoder model(String type, long seed) {
    TinyEncoderDecoder.Spec spec = switch (type) {
      case "t5" -> EncoderDecoderFamiliesTest.t5();
      case "t5v11" -> EncoderDecoderFamiliesTest.t5v11();
      case "bart" -> EncoderDecoderFamiliesTest.bart();
      default -> throw new IllegalArgumentException(type);
    };
    return new TinyEncoderDecoder(spec, seed);
  }
}
