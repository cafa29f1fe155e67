package io.headscope.model.decoders;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A byte-level BPE {@code tokenizer.json} in Llama 3's layout, written by hand: a {@code Split}
 * pre-tokenizer with Llama 3's regex (digits in groups of at most three), then {@code ByteLevel} without
 * its own regex, a BOS token put first by a {@code TemplateProcessing} post-processor (Qwen2's tokenizers
 * put none: {@code bos} false), and a made-up vocabulary whose ids can be worked out on paper:
 *
 * <ul>
 *   <li>byte b is id b (in GPT-2's printable stand-ins: the space 0x20 is {@code Ġ}, id 32);</li>
 *   <li>merges, by rank: {@code Ġ c} (256), {@code Ġc a} (257), {@code Ġca b} (258), {@code 3 4} (259);</li>
 *   <li>{@code <|begin_of_text|>} 260, {@code <|end_of_text|>} 261.</li>
 * </ul>
 *
 * <p>"a cab 12345" is then, by hand: {@code a} | {@code Ġcab} | {@code Ġ} | {@code 123} | {@code 45} by the
 * regex (the lone space before a digit is its own piece), and within the pieces {@code a} = 97, {@code
 * Ġcab} = 258 after three merges, {@code Ġ} = 32, {@code 1 2 3} = 49 50 51, {@code 4 5} = 52 53: the
 * merge {@code 3 4} cannot apply, because the regex has already cut between them.
 */
final class HandLlamaTokenizer {
  static final int BOS = 260;
  static final int EOS = 261;
  static final String TEXT = "a cab 12345";
  /** {@link #TEXT}'s ids worked out by hand (see the class comment), BOS first. */
  static final long[] TEXT_IDS = {BOS, 97, 258, 32, 49, 50, 51, 52, 53};

  /** Llama 3's split pattern, as its tokenizer.json writes it. */
  static final String LLAMA3_SPLIT = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?"
      + "[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

  private HandLlamaTokenizer() {}

  static void write(Path file, boolean bos) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("version", "1.0");
    root.put("truncation", null);
    root.put("padding", null);
    root.put("added_tokens", List.of(added(BOS, "<|begin_of_text|>"), added(EOS, "<|end_of_text|>")));
    root.put("normalizer", null);
    Map<String, Object> split = new LinkedHashMap<>();
    split.put("type", "Split");
    split.put("pattern", Map.of("Regex", LLAMA3_SPLIT));
    split.put("behavior", "Isolated");
    split.put("invert", false);
    Map<String, Object> byteLevel = new LinkedHashMap<>();
    byteLevel.put("type", "ByteLevel");
    byteLevel.put("add_prefix_space", false);
    byteLevel.put("trim_offsets", true);
    byteLevel.put("use_regex", false);
    root.put("pre_tokenizer", Map.of("type", "Sequence", "pretokenizers", List.of(split, byteLevel)));
    if (bos) {
      Map<String, Object> template = new LinkedHashMap<>();
      template.put("type", "TemplateProcessing");
      template.put("single", List.of(Map.of("SpecialToken", Map.of("id", "<|begin_of_text|>", "type_id", 0)),
          Map.of("Sequence", Map.of("id", "A", "type_id", 0))));
      template.put("pair", List.of(Map.of("SpecialToken", Map.of("id", "<|begin_of_text|>", "type_id", 0)),
          Map.of("Sequence", Map.of("id", "A", "type_id", 0)),
          Map.of("SpecialToken", Map.of("id", "<|begin_of_text|>", "type_id", 1)),
          Map.of("Sequence", Map.of("id", "B", "type_id", 1))));
      template.put("special_tokens", Map.of("<|begin_of_text|>", Map.of("id", "<|begin_of_text|>",
          "ids", List.of(BOS), "tokens", List.of("<|begin_of_text|>"))));
      Map<String, Object> byteLevelPost = new LinkedHashMap<>(byteLevel);
      root.put("post_processor", Map.of("type", "Sequence", "processors", List.of(byteLevelPost, template)));
    } else {
      Map<String, Object> byteLevelPost = new LinkedHashMap<>(byteLevel);
      root.put("post_processor", byteLevelPost);
    }
    root.put("decoder", Map.of("type", "ByteLevel", "add_prefix_space", true, "trim_offsets", true, "use_regex", true));
    Map<String, Object> model = new LinkedHashMap<>();
    model.put("type", "BPE");
    model.put("dropout", null);
    model.put("unk_token", null);
    model.put("continuing_subword_prefix", null);
    model.put("end_of_word_suffix", null);
    model.put("fuse_unk", false);
    model.put("byte_fallback", false);
    model.put("ignore_merges", true);
    Map<String, Integer> vocab = new LinkedHashMap<>();
    for (int b = 0; b < 256; b++) {
      vocab.put(byteChar(b), b);
    }
    List<String> merges = List.of("Ġ c", "Ġc a", "Ġca b", "3 4");
    for (String m : merges) {
      vocab.put(m.replace(" ", ""), vocab.size());
    }
    vocab.put("<|begin_of_text|>", BOS);
    vocab.put("<|end_of_text|>", EOS);
    model.put("vocab", vocab);
    model.put("merges", new ArrayList<>(merges));
    root.put("model", model);
    try {
      new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(file.toFile(), root);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Map<String, Object> added(int id, String content) {
    Map<String, Object> t = new LinkedHashMap<>();
    t.put("id", id);
    t.put("content", content);
    t.put("single_word", false);
    t.put("lstrip", false);
    t.put("rstrip", false);
    t.put("normalized", false);
    t.put("special", true);
    return t;
  }

  /**
   * GPT-2's printable stand-in for a byte: printable Latin-1 bytes (! to ~, ¡ to ¬, ® to ÿ) are themselves,
   * the 68 others take U+0100, U+0101, ... in byte order.
   */
  static String byteChar(int b) {
    int rank = 0;
    for (int o = 0; o <= b; o++) {
      boolean printable = (o >= '!' && o <= '~') || (o >= 0xA1 && o <= 0xAC) || (o >= 0xAE && o <= 0xFF);
      if (o == b) {
        return printable ? String.valueOf((char) b) : String.valueOf((char) (0x100 + rank));
      }
      if (!printable) {
        rank++;
      }
    }
    throw new IllegalArgumentException("byte " + b);
  }
}
