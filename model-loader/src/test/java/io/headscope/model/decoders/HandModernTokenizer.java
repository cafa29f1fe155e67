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
 * A byte-level BPE {@code tokenizer.json} in ModernBERT's layout, written by hand: a {@code ByteLevel}
 * pre-tokenizer with GPT-2's regex, {@code [CLS] $A [SEP]} put around the text by a {@code TemplateProcessing}
 * post-processor, and {@code [MASK]} an added special token with {@code lstrip} (it takes the space before it, as
 * ModernBERT's does). The vocabulary is {@link HandLlamaTokenizer}'s (byte b is id b; merges {@code Ġ c} 256,
 * {@code Ġc a} 257, {@code Ġca b} 258, {@code 3 4} 259) and the special tokens after it.
 *
 * <p>{@link #TEXT} by hand: {@code [MASK]} is cut out first with the space before it; GPT-2's regex splits the
 * rest into {@code a | Ġcab | Ġa | Ġcab} and {@code Ġa}: {@code a} = 97, {@code Ġcab} = 258 after three merges,
 * {@code Ġa} = 32 97 (no merge {@code Ġ a}); with {@code [CLS]} first and {@code [SEP]} last.
 */
final class HandModernTokenizer {
  static final int CLS = 260;
  static final int SEP = 261;
  static final int MASK = 262;
  static final int PAD = 263;
  static final int UNK = 264;
  static final String TEXT = "a cab a cab [MASK] a";
  static final long[] TEXT_IDS = {CLS, 97, 258, 32, 97, 258, MASK, 32, 97, SEP};

  private HandModernTokenizer() {}

  static void write(Path file) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("version", "1.0");
    root.put("truncation", null);
    root.put("padding", null);
    root.put("added_tokens", List.of(added(CLS, "[CLS]", false), added(SEP, "[SEP]", false), added(MASK, "[MASK]", true),
        added(PAD, "[PAD]", false), added(UNK, "[UNK]", false)));
    root.put("normalizer", null);
    Map<String, Object> byteLevel = new LinkedHashMap<>();
    byteLevel.put("type", "ByteLevel");
    byteLevel.put("add_prefix_space", false);
    byteLevel.put("trim_offsets", true);
    byteLevel.put("use_regex", true);
    root.put("pre_tokenizer", byteLevel);
    Map<String, Object> template = new LinkedHashMap<>();
    template.put("type", "TemplateProcessing");
    template.put("single", List.of(special("[CLS]", 0), sequence("A", 0), special("[SEP]", 0)));
    template.put("pair", List.of(special("[CLS]", 0), sequence("A", 0), special("[SEP]", 0), sequence("B", 1),
        special("[SEP]", 1)));
    template.put("special_tokens", Map.of(
        "[CLS]", Map.of("id", "[CLS]", "ids", List.of(CLS), "tokens", List.of("[CLS]")),
        "[SEP]", Map.of("id", "[SEP]", "ids", List.of(SEP), "tokens", List.of("[SEP]"))));
    root.put("post_processor", template);
    root.put("decoder", Map.of("type", "ByteLevel", "add_prefix_space", true, "trim_offsets", true, "use_regex", true));
    Map<String, Object> model = new LinkedHashMap<>();
    model.put("type", "BPE");
    model.put("dropout", null);
    model.put("unk_token", null);
    model.put("continuing_subword_prefix", null);
    model.put("end_of_word_suffix", null);
    model.put("fuse_unk", false);
    model.put("byte_fallback", false);
    Map<String, Integer> vocab = new LinkedHashMap<>();
    for (int b = 0; b < 256; b++) {
      vocab.put(HandLlamaTokenizer.byteChar(b), b);
    }
    List<String> merges = List.of("Ġ c", "Ġc a", "Ġca b", "3 4");
    for (String m : merges) {
      vocab.put(m.replace(" ", ""), vocab.size());
    }
    vocab.put("[CLS]", CLS);
    vocab.put("[SEP]", SEP);
    vocab.put("[MASK]", MASK);
    vocab.put("[PAD]", PAD);
    vocab.put("[UNK]", UNK);
    model.put("vocab", vocab);
    model.put("merges", new ArrayList<>(merges));
    root.put("model", model);
    try {
      new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(file.toFile(), root);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Map<String, Object> special(String id, int type) {
    return Map.of("SpecialToken", Map.of("id", id, "type_id", type));
  }

  private static Map<String, Object> sequence(String id, int type) {
    return Map.of("Sequence", Map.of("id", id, "type_id", type));
  }

  private static Map<String, Object> added(int id, String content, boolean lstrip) {
    Map<String, Object> t = new LinkedHashMap<>();
    t.put("id", id);
    t.put("content", content);
    t.put("single_word", false);
    t.put("lstrip", lstrip);
    t.put("rstrip", false);
    t.put("normalized", false);
    t.put("special", true);
    return t;
  }
}
