package io.headscope.model.decoders;

import java.nio.file.Path;

/** Tiny rotary-decoder folders for the other modules' tests (the shapes of {@link DecoderFamiliesTest}). */
public final class DecoderFolders {
  private DecoderFolders() {}

  /** The text whose ids the hand-written tokenizer gives by hand ({@link HandLlamaTokenizer}). */
  public static final String TEXT = HandLlamaTokenizer.TEXT;

  /** A Llama (bf16, two shards, 2 key/value heads of 4, Llama 3 scaling), written into {@code dir}. */
  public static Path llama(Path dir, long seed) {
    return new TinyDecoder(DecoderFamiliesTest.llama(DecoderFamiliesTest.LLAMA3), seed).writeTo(dir);
  }

  /** A Mistral (bf16, one key/value head, a sliding window of {@code window} tokens), written into {@code dir}. */
  public static Path mistral(Path dir, long seed, int window) {
    return new TinyDecoder(DecoderFamiliesTest.mistral(window), seed).writeTo(dir);
  }
}
