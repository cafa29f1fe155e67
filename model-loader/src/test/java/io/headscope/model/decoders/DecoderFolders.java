package io.headscope.model.decoders;

import java.nio.file.Path;
import java.util.Map;

/** Tiny rotary-decoder folders for the other modules' tests (the shapes of {@link DecoderFamiliesTest}). */
public final class DecoderFolders {
  private DecoderFolders() {}

  /** The text whose ids the hand-written tokenizer gives by hand ({@link HandLlamaTokenizer}). */
  public static final String TEXT = HandLlamaTokenizer.TEXT;

  /** {@link #TEXT}'s ids worked out by hand, BOS first (Qwen2's tokenizer puts none). */
  public static long[] textIds(String type) {
    long[] ids = HandLlamaTokenizer.TEXT_IDS.clone();
    return type.equals("qwen2") ? java.util.Arrays.copyOfRange(ids, 1, ids.length) : ids;
  }

  /** A Llama (bf16, two shards, 2 key/value heads of 4, Llama 3 scaling), written into {@code dir}. */
  public static Path llama(Path dir, long seed) {
    return model("llama", seed).writeTo(dir);
  }

  /** A Mistral (bf16, one key/value head, a sliding window of {@code window} tokens), written into {@code dir}. */
  public static Path mistral(Path dir, long seed, int window) {
    return new TinyDecoder(DecoderFamiliesTest.mistral(window), seed).writeTo(dir);
  }

  /** {@code llama}, {@code qwen2}, {@code mistral} (window 3) or {@code gemma}, written into {@code dir}. */
  public static Path write(String type, Path dir, long seed) {
    return model(type, seed).writeTo(dir);
  }

  /**
   * The reference's maps of {@link #write}'s model on {@code ids} ({@code [0]}) and the standard deviations of a
   * float32 computation's error ({@code [1]}), {@code [layer][head][query][key]}: see {@link DecoderReference}.
   */
  public static double[][][][][] reference(String type, long seed, long[] ids) {
    DecoderReference.Result r = DecoderReference.run(model(type, seed), ids);
    return new double[][][][][] {r.attention(), r.sigma()};
  }

  /** How many standard deviations a test allows ({@link DecoderReference#LAMBDA}). */
  public static final double LAMBDA = DecoderReference.LAMBDA;

  /** A tiny GPT-NeoX (Pythia's parts, fp16) or ModernBERT (4 layers, local_attention 4, bf16) in {@code dir}. */
  public static Path writeNeoxModern(String type, Path dir, long seed) {
    return neoxModern(type, seed).writeTo(dir);
  }

  /** The text whose ids {@link #neoxModernIds} gives by hand: ModernBERT's has a {@code [MASK]}. */
  public static String neoxModernText(String type) {
    return type.equals("modernbert") ? HandModernTokenizer.TEXT : HandLlamaTokenizer.TEXT;
  }

  /** {@link #neoxModernText}'s ids worked out by hand (Pythia's tokenizer puts no BOS; ModernBERT's [CLS] .. [SEP]). */
  public static long[] neoxModernIds(String type) {
    return type.equals("modernbert") ? HandModernTokenizer.TEXT_IDS.clone() : textIds("qwen2");
  }

  /** The reference's maps ({@code [0]}) and error deviations ({@code [1]}) of {@link #writeNeoxModern}'s model. */
  public static double[][][][][] neoxModernReference(String type, long seed, long[] ids) {
    TinyNeoxModern m = neoxModern(type, seed);
    NeoxModernReference.Result r = m.spec.neox() ? NeoxModernReference.neox(m, ids, ids.length - 1)
        : NeoxModernReference.modernBert(m, ids, 0);
    return new double[][][][][] {r.attention(), r.sigma()};
  }

  private static TinyNeoxModern neoxModern(String type, long seed) {
    return new TinyNeoxModern(switch (type) {
      case "gpt_neox" -> NeoxModernFamiliesTest.neox(true);
      case "modernbert" -> NeoxModernFamiliesTest.modernBert();
      default -> throw new IllegalArgumentException(type);
    }, seed);
  }

  /**
   * One stored weight of {@link #write}'s ({@code llama}, {@code qwen2}, {@code mistral}, {@code gemma}) or {@link
   * #writeNeoxModern}'s ({@code gpt_neox}, {@code modernbert}) model, by its checkpoint name, row-major, as the file
   * stores it (exact in bf16 and fp16); null where the model has no such tensor.
   */
  public static double[] weight(String type, long seed, String name) {
    Map<String, TinyDecoder.Tensor> w = type.equals("gpt_neox") || type.equals("modernbert")
        ? neoxModern(type, seed).weights : model(type, seed).weights;
    TinyDecoder.Tensor t = w.get(name);
    return t == null ? null : t.values().clone();
  }

  private static TinyDecoder model(String type, long seed) {
    TinyDecoder.Spec spec = switch (type) {
      case "llama" -> DecoderFamiliesTest.llama(DecoderFamiliesTest.LLAMA3);
      case "qwen2" -> DecoderFamiliesTest.qwen2();
      case "mistral" -> DecoderFamiliesTest.mistral(3);
      case "gemma" -> DecoderFamiliesTest.gemma();
      default -> throw new IllegalArgumentException(type);
    };
    return new TinyDecoder(spec, seed);
  }
}
