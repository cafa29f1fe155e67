package io.headscope.model.tokenizer;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Tiny tokenizers written by hand for the tests, one per family, in the {@code tokenizer.json}
 * layout Hugging Face saves. No published vocabulary is copied: the pieces and merges are made up
 * so that each expected token can be worked out on paper.
 */
public final class HandTokenizers {
  private HandTokenizers() {}

  /**
   * The byte-level merges, in rank order. Each merged token gets the next id after the 256 bytes.
   * Worked out by hand in the tests: "café" is bytes 63 61 66 C3 A9, shown c a f Ã ©; ranks 0-3 make
   * it one token. "😀" (U+1F600) is bytes F0 9F 98 80, shown ð Ł ĺ Ģ; ranks 4-5 leave ðŁĺ and Ģ.
   */
  static final List<String> MERGES = List.of(
      "Ã ©", "c a", "ca f", "caf Ã©", "ð Ł", "ðŁ ĺ", "Ġ a", "Ġ b", "Ġ c", "Ġ d");

  /**
   * GPT-2's printable stand-in for a byte: the printable Latin-1 bytes (! to ~, ¡ to ¬, ® to ÿ) are
   * themselves; the 68 others (0-32, 127-160, 173) take U+0100, U+0101, ... in byte order. So the
   * space 0x20 is U+0120 Ġ, 0x80 is U+0122 Ģ, 0x98 is U+013A ĺ, 0x9F is U+0141 Ł.
   */
  static String byteChar(int b) {
    boolean printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    if (printable) {
      return String.valueOf((char) b);
    }
    int rank = 0;
    for (int o = 0; o < b; o++) {
      boolean p = (o >= '!' && o <= '~') || (o >= 0xA1 && o <= 0xAC) || (o >= 0xAE && o <= 0xFF);
      if (!p) {
        rank++;
      }
    }
    return String.valueOf((char) (0x100 + rank));
  }

  /**
   * A byte-level vocabulary: {@code leading} tokens from id 0, then the 256 bytes in byte order, then
   * the merged tokens of {@link #MERGES}, then {@code trailing}.
   */
  static Map<String, Integer> byteLevelVocab(List<String> leading, String trailing) {
    Map<String, Integer> vocab = new LinkedHashMap<>();
    leading.forEach(t -> vocab.put(t, vocab.size()));
    for (int b = 0; b < 256; b++) {
      vocab.put(byteChar(b), vocab.size());
    }
    for (String m : MERGES) {
      vocab.put(m.replace(" ", ""), vocab.size());
    }
    vocab.put(trailing, vocab.size());
    return vocab;
  }

  /** RoBERTa-like: {@code <s>}0 {@code <pad>}1 {@code </s>}2 {@code <unk>}3, byte b at 4 + b, merges at 260.., {@code <mask>}270. */
  static Map<String, Integer> robertaVocab() {
    return byteLevelVocab(List.of("<s>", "<pad>", "</s>", "<unk>"), "<mask>");
  }

  /** GPT-2-like: byte b at b, merges at 256..265, {@code <|endoftext|>} 266. */
  static Map<String, Integer> gpt2Vocab() {
    return byteLevelVocab(List.of(), "<|endoftext|>");
  }

  public static Path roberta(Path dir) {
    Map<String, Integer> vocab = robertaVocab();
    Map<String, Object> root = header(List.of(
        added(0, "<s>", false), added(1, "<pad>", false), added(2, "</s>", false), added(3, "<unk>", false),
        added(270, "<mask>", true)));
    root.put("normalizer", null);
    root.put("pre_tokenizer", byteLevel());
    root.put("post_processor", Map.of("type", "RobertaProcessing", "sep", List.of("</s>", 2),
        "cls", List.of("<s>", 0), "trim_offsets", true, "add_prefix_space", false));
    root.put("decoder", byteLevel());
    root.put("model", bpe(vocab));
    return write(dir.resolve("roberta-tokenizer.json"), root);
  }

  public static Path gpt2(Path dir) {
    Map<String, Object> root = header(List.of(added(266, "<|endoftext|>", false)));
    root.put("normalizer", null);
    root.put("pre_tokenizer", byteLevel());
    root.put("post_processor", byteLevel());
    root.put("decoder", byteLevel());
    root.put("model", bpe(gpt2Vocab()));
    return write(dir.resolve("gpt2-tokenizer.json"), root);
  }

  /**
   * ALBERT-like Unigram: lower-cases, {@code ▁} before every word, {@code [CLS] a [SEP] b [SEP]} with
   * {@code b [SEP]} in segment 1. {@code [MASK]} takes the space before it, as ALBERT's does.
   */
  public static Path albert(Path dir) {
    Map<String, Object> root = header(List.of(
        added(0, "<pad>", false), added(1, "<unk>", false), added(2, "[CLS]", false), added(3, "[SEP]", false),
        added(4, "[MASK]", true)));
    root.put("normalizer", Map.of("type", "Lowercase"));
    Map<String, Object> metaspace = new LinkedHashMap<>();
    metaspace.put("type", "Metaspace");
    metaspace.put("replacement", "▁");
    metaspace.put("prepend_scheme", "always");
    metaspace.put("split", true);
    root.put("pre_tokenizer", metaspace);
    Map<String, Object> post = new LinkedHashMap<>();
    post.put("type", "TemplateProcessing");
    post.put("single", List.of(special("[CLS]", 0), sequence("A", 0), special("[SEP]", 0)));
    post.put("pair", List.of(special("[CLS]", 0), sequence("A", 0), special("[SEP]", 0), sequence("B", 1),
        special("[SEP]", 1)));
    post.put("special_tokens", Map.of(
        "[CLS]", Map.of("id", "[CLS]", "ids", List.of(2), "tokens", List.of("[CLS]")),
        "[SEP]", Map.of("id", "[SEP]", "ids", List.of(3), "tokens", List.of("[SEP]"))));
    root.put("post_processor", post);
    root.put("decoder", metaspace);
    Map<String, Object> model = new LinkedHashMap<>();
    model.put("type", "Unigram");
    model.put("unk_id", 1);
    // id = place in the list; the scores are log-probabilities the tests' Viterbi sums by hand.
    model.put("vocab", List.of(
        List.of("<pad>", 0.0), List.of("<unk>", 0.0), List.of("[CLS]", 0.0), List.of("[SEP]", 0.0),
        List.of("[MASK]", 0.0),
        List.of("▁", -2.0), List.of("▁u", -2.5), List.of("▁un", -3.0), List.of("n", -2.0), // 5-8
        List.of("s", -3.0), List.of("e", -3.0), List.of("se", -2.5), List.of("en", -2.5), // 9-12
        List.of("seen", -4.0), List.of("▁the", -1.5), List.of("▁cat", -1.5), List.of("▁a", -2.0), // 13-16
        List.of("▁b", -2.0), List.of("▁c", -2.0), List.of("▁d", -2.0))); // 17-19
    model.put("byte_fallback", false);
    root.put("model", model);
    return write(dir.resolve("albert-tokenizer.json"), root);
  }

  /**
   * XLM-R-like: the ALBERT-like Unigram with RoBERTa's specials and template, {@code <s>}2 {@code
   * </s>}3 {@code <mask>}4 in place of [CLS] [SEP] [MASK] (the other ids unchanged).
   */
  public static Path xlmRoberta(Path dir) {
    try {
      String json = Files.readString(albert(dir))
          .replace("[CLS]", "<s>").replace("[SEP]", "</s>").replace("[MASK]", "<mask>");
      Map<String, Object> root = new ObjectMapper().readValue(json, LinkedHashMap.class);
      root.put("post_processor", Map.of("type", "RobertaProcessing", "sep", List.of("</s>", 3),
          "cls", List.of("<s>", 2), "trim_offsets", true, "add_prefix_space", true));
      return write(dir.resolve("xlmr-tokenizer.json"), root);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** DistilBERT/ELECTRA-like WordPiece, through the project's own BERT writer. */
  public static Path wordPiece(Path dir) {
    String json = TokenizerJsonWriter.toJson(List.of(
        "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "un", "##seen", "cat", ".", "##s"), true);
    try {
      return Files.writeString(dir.resolve("wordpiece-tokenizer.json"), json, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // --- pieces of tokenizer.json ------------------------------------------------------------

  private static Map<String, Object> header(List<Object> addedTokens) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("version", "1.0");
    root.put("truncation", null);
    root.put("padding", null);
    root.put("added_tokens", new ArrayList<>(addedTokens));
    return root;
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

  private static Map<String, Object> byteLevel() {
    return Map.of("type", "ByteLevel", "add_prefix_space", false, "trim_offsets", true, "use_regex", true);
  }

  private static Map<String, Object> bpe(Map<String, Integer> vocab) {
    Map<String, Object> model = new LinkedHashMap<>();
    model.put("type", "BPE");
    model.put("dropout", null);
    model.put("unk_token", null);
    model.put("continuing_subword_prefix", "");
    model.put("end_of_word_suffix", "");
    model.put("fuse_unk", false);
    model.put("byte_fallback", false);
    model.put("vocab", vocab);
    model.put("merges", MERGES);
    return model;
  }

  private static Map<String, Object> special(String token, int typeId) {
    return Map.of("SpecialToken", Map.of("id", token, "type_id", typeId));
  }

  private static Map<String, Object> sequence(String which, int typeId) {
    return Map.of("Sequence", Map.of("id", which, "type_id", typeId));
  }

  static Path write(Path file, Object json) {
    try {
      new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(file.toFile(), json);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
