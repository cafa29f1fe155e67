package io.headscope.model.decoders;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.headscope.model.tokenizer.Encoding;
import io.headscope.model.tokenizer.TextEncoders;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code tokenizer.json} kinds of the decoder families, each written here by hand at a tiny size, encoding
 * sentences whose ids are worked out on paper from the files' rules (the tokenizer itself is Hugging Face's Rust
 * library through DJL; these check that HeadScope hands it the files as they come and reads back its ids):
 *
 * <ul>
 *   <li>SentencePiece-style BPE with byte fallback (Llama 2, Mistral), with the {@code Prepend} + {@code Replace}
 *       normalizer and with the {@code Metaspace} pre-tokenizer;</li>
 *   <li>Unigram with a {@code Precompiled} normalizer (T5), its charsmap a double-array trie built here;</li>
 *   <li>byte-level BPE with Qwen2's split regex (digits one by one) beside Llama 3's (up to three).</li>
 * </ul>
 */
class TokenizerKindsTest {
  @TempDir Path dir;

  private static final ObjectMapper JSON = new ObjectMapper();

  private long[] encode(Map<String, Object> tokenizer, String name, String text) throws Exception {
    Path file = dir.resolve(name + ".json");
    JSON.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), tokenizer);
    Encoding e = TextEncoders.open(file, 64).encode(text);
    return e.ids();
  }

  // --- SentencePiece BPE with byte fallback ---------------------------------------------------------

  /**
   * Llama 2's layout: {@code <unk>} 0, {@code <s>} 1, {@code </s>} 2, the 256 byte tokens {@code <0x00>} ..
   * {@code <0xFF>} at 3 .. 258, then {@code ▁} 259, {@code a} 260, {@code c} 261, {@code b} 262, and the merges
   * {@code ▁ c} (263), {@code ▁c a} (264), {@code ▁ca b} (265); {@code byte_fallback} true, {@code <s>} first.
   */
  private static Map<String, Object> sentencePieceBpe(boolean metaspace) {
    Map<String, Object> root = base(List.of(added(0, "<unk>"), added(1, "<s>"), added(2, "</s>")));
    if (metaspace) { // Mistral's older files: no normalizer, a Metaspace pre-tokenizer that prepends ▁
      root.put("normalizer", null);
      root.put("pre_tokenizer", Map.of("type", "Metaspace", "replacement", "▁", "prepend_scheme", "first", "split", false));
    } else { // Llama 2's current file: the normalizer prepends ▁ and turns spaces into ▁; no pre-tokenizer
      root.put("normalizer", Map.of("type", "Sequence", "normalizers", List.of(
          Map.of("type", "Prepend", "prepend", "▁"),
          Map.of("type", "Replace", "pattern", Map.of("String", " "), "content", "▁"))));
      root.put("pre_tokenizer", null);
    }
    root.put("post_processor", template(List.of(special("<s>"), sequence()), "<s>", 1));
    Map<String, Object> model = new LinkedHashMap<>();
    model.put("type", "BPE");
    model.put("dropout", null);
    model.put("unk_token", "<unk>");
    model.put("continuing_subword_prefix", null);
    model.put("end_of_word_suffix", null);
    model.put("fuse_unk", true);
    model.put("byte_fallback", true);
    Map<String, Integer> vocab = new LinkedHashMap<>();
    vocab.put("<unk>", 0);
    vocab.put("<s>", 1);
    vocab.put("</s>", 2);
    for (int b = 0; b < 256; b++) {
      vocab.put(String.format("<0x%02X>", b), 3 + b);
    }
    for (String piece : List.of("▁", "a", "c", "b", "▁c", "▁ca", "▁cab")) {
      vocab.put(piece, vocab.size());
    }
    model.put("vocab", vocab);
    model.put("merges", List.of("▁ c", "▁c a", "▁ca b"));
    root.put("model", model);
    return root;
  }

  /**
   * "a cab é" by hand: normalized {@code ▁a▁cab▁é}; BPE merges {@code ▁ c}, {@code ▁c a}, {@code ▁ca b} in rank
   * order (no merge makes {@code ▁a}): {@code ▁} 259, {@code a} 260, {@code ▁cab} 265, {@code ▁} 259, and {@code é},
   * not in the vocabulary, falls back to its UTF-8 bytes C3 A9: {@code <0xC3>} 3 + 0xC3 = 198, {@code <0xA9>} 3 +
   * 0xA9 = 172; {@code <s>} 1 first.
   */
  static final long[] SENTENCE_PIECE_IDS = {1, 259, 260, 265, 259, 198, 172};

  @Test
  void sentencePieceBpeWithByteFallbackEncodesAsWorkedOutByHand() throws Exception {
    assertThat(encode(sentencePieceBpe(false), "llama2", "a cab é")).containsExactly(SENTENCE_PIECE_IDS);
  }

  @Test
  void theMetaspacePreTokenizerGivesTheSameIds() throws Exception {
    assertThat(encode(sentencePieceBpe(true), "mistral", "a cab é")).containsExactly(SENTENCE_PIECE_IDS);
  }

  // --- Unigram with a Precompiled normalizer ----------------------------------------------------------

  /**
   * A SentencePiece {@code precompiled_charsmap} mapping {@code ａ} (U+FF41, UTF-8 EF BD 81) to {@code a} and the
   * ligature {@code ﬁ} (U+FB01, EF AC 81) to {@code fi}: the format Hugging Face's {@code spm_precompiled} reads,
   * a little-endian u32 byte length of the trie, the trie's u32 units, then the replacements, each ended by NUL.
   *
   * <p>The trie is Darts-clone's double array, laid out here by hand: a unit's low byte is its label, bit 8 says
   * a leaf hangs below it, bits 10.. hold its offset; from node position p a byte c leads to {@code p ^ offset(p)
   * ^ c}, whose unit must carry the label c; below a unit with the leaf bit, at {@code p ^ offset}, the leaf unit
   * (bit 31 set) holds the replacement's index in the string. The root's children sit in block 256, EF's in block
   * 512, BD's and AC's in blocks 768 and 1024, and the two leaves at 1280 and 1536; every other unit is 0, whose
   * label matches no byte, so any other text is left as it is.
   */
  static byte[] charsmap() {
    int[] units = new int[1792];
    units[0] = unit(0, 256, false); // root: children at 256 ^ c
    int p1 = 256 ^ 0xEF;
    units[p1] = unit(0xEF, p1 ^ 512, false);
    int pBd = 512 ^ 0xBD;
    units[pBd] = unit(0xBD, pBd ^ 768, false);
    int pAc = 512 ^ 0xAC;
    units[pAc] = unit(0xAC, pAc ^ 1024, false);
    int pA = 768 ^ 0x81; // ａ's last byte
    units[pA] = unit(0x81, pA ^ 1280, true);
    int pFi = 1024 ^ 0x81; // ﬁ's last byte
    units[pFi] = unit(0x81, pFi ^ 1536, true);
    byte[] replacements = "a\0fi\0".getBytes(StandardCharsets.UTF_8);
    units[1280] = (1 << 31) | 0; // "a" at index 0
    units[1536] = (1 << 31) | 2; // "fi" at index 2
    ByteBuffer b = ByteBuffer.allocate(4 + 4 * units.length + replacements.length).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(4 * units.length);
    for (int u : units) {
      b.putInt(u);
    }
    b.put(replacements);
    return b.array();
  }

  private static int unit(int label, int offset, boolean leaf) {
    if (offset >= 1 << 21) {
      throw new IllegalArgumentException("offsets this small need no shift");
    }
    return offset << 10 | (leaf ? 1 << 8 : 0) | label;
  }

  /**
   * T5's layout: the Precompiled normalizer then spaces squeezed; {@code WhitespaceSplit} and {@code Metaspace}
   * ({@code ▁} before every word); a Unigram model, {@code <unk>} id 2, with made-up log probabilities; {@code
   * </s>} after the text.
   */
  private static Map<String, Object> unigram() {
    Map<String, Object> root = base(List.of(added(0, "<pad>"), added(1, "</s>"), added(2, "<unk>")));
    root.put("normalizer", Map.of("type", "Sequence", "normalizers", List.of(
        Map.of("type", "Precompiled", "precompiled_charsmap", Base64.getEncoder().encodeToString(charsmap())),
        Map.of("type", "Replace", "pattern", Map.of("Regex", " {2,}"), "content", " "))));
    root.put("pre_tokenizer", Map.of("type", "Sequence", "pretokenizers", List.of(
        Map.of("type", "WhitespaceSplit"),
        Map.of("type", "Metaspace", "replacement", "▁", "prepend_scheme", "always", "split", true))));
    root.put("post_processor", template(List.of(sequence(), special("</s>")), "</s>", 1));
    List<List<Object>> vocab = new ArrayList<>();
    Object[][] pieces = {{"<pad>", 0.0}, {"</s>", 0.0}, {"<unk>", 0.0}, {"▁", -2.0}, {"a", -3.0}, {"▁a", -1.5},
        {"c", -3.0}, {"b", -3.0}, {"▁c", -2.5}, {"ab", -2.5}, {"▁cab", -7.0}, {"f", -3.0}, {"i", -3.0}, {"fi", -1.0}};
    for (Object[] p : pieces) {
      vocab.add(List.of(p[0], p[1]));
    }
    Map<String, Object> model = new LinkedHashMap<>();
    model.put("type", "Unigram");
    model.put("unk_id", 2);
    model.put("vocab", vocab);
    model.put("byte_fallback", false);
    root.put("model", model);
    return root;
  }

  /**
   * "ａ cab ﬁ é" by hand: the charsmap makes it "a cab fi é"; the words {@code ▁a}, {@code ▁cab}, {@code ▁fi},
   * {@code ▁é}; Unigram keeps the segmentation of highest total log probability: {@code ▁a} (-1.5, not {@code ▁ a}
   * -5) = 5; {@code ▁c ab} (-5, not {@code ▁cab} -7 nor {@code ▁c a b} -8.5) = 8, 9; {@code ▁ fi} (-3, not
   * {@code ▁ f i} -8) = 3, 13; {@code é} is in no piece, so {@code ▁} 3 and {@code <unk>} 2 (T5 has no byte
   * fallback); {@code </s>} 1 last.
   */
  @Test
  void unigramWithAPrecompiledNormalizerEncodesAsWorkedOutByHand() throws Exception {
    assertThat(encode(unigram(), "t5", "ａ cab ﬁ é")).containsExactly(5, 8, 9, 3, 13, 3, 2, 1);
  }

  @Test
  void theHandBuiltCharsmapIsWhatNormalizesTheText() throws Exception {
    // without the charsmap ａ and ﬁ are unknown: the map above is what turned them into a and fi
    Map<String, Object> plain = unigram();
    plain.put("normalizer", null);
    assertThat(encode(plain, "t5-plain", "ａ ﬁ")).containsExactly(3, 2, 3, 2, 1);
  }

  // --- byte-level BPE: Qwen2's split regex beside Llama 3's ------------------------------------------

  /** Qwen2's split pattern, as its tokenizer.json writes it: one digit per piece. */
  static final String QWEN2_SPLIT = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+"
      + "[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

  private Map<String, Object> byteLevel(String regex) throws Exception {
    Path file = dir.resolve("hand.json");
    HandLlamaTokenizer.write(file, false);
    @SuppressWarnings("unchecked")
    Map<String, Object> root = JSON.readValue(file.toFile(), Map.class);
    String text = JSON.writeValueAsString(root).replace(JSON.writeValueAsString(HandLlamaTokenizer.LLAMA3_SPLIT),
        JSON.writeValueAsString(regex));
    @SuppressWarnings("unchecked")
    Map<String, Object> changed = JSON.readValue(text, Map.class);
    return changed;
  }

  /**
   * "x 34 345 é" by hand ({@link HandLlamaTokenizer}'s vocabulary: byte b is id b, merge {@code 3 4} = 259). Llama
   * 3's regex keeps up to three digits together: {@code x} | {@code Ġ} | {@code 34} | {@code Ġ} | {@code 345} |
   * {@code Ġé}, so {@code 34} merges (259) in both numbers: 120, 32, 259, 32, 259, 53. Qwen2's cuts every digit
   * apart, so the merge never applies: 120, 32, 51, 52, 32, 51, 52, 53. Either way {@code é} is its two UTF-8 bytes
   * in GPT-2's stand-ins, {@code Ġ} 32, {@code Ã} 0xC3 = 195, {@code ©} 0xA9 = 169: a byte-level vocabulary has no
   * unknown.
   */
  @Test
  void byteLevelBpeSplitsDigitsAsEachRegexSays() throws Exception {
    String text = "x 34 345 é";
    assertThat(encode(byteLevel(HandLlamaTokenizer.LLAMA3_SPLIT), "llama3", text))
        .containsExactly(120, 32, 259, 32, 259, 53, 32, 195, 169);
    assertThat(encode(byteLevel(QWEN2_SPLIT), "qwen2", text))
        .containsExactly(120, 32, 51, 52, 32, 51, 52, 53, 32, 195, 169);
  }

  // --- helpers -------------------------------------------------------------------------------------

  private static Map<String, Object> base(List<Map<String, Object>> added) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("version", "1.0");
    root.put("truncation", null);
    root.put("padding", null);
    root.put("added_tokens", added);
    root.put("decoder", null);
    return root;
  }

  private static Map<String, Object> template(List<Map<String, Object>> single, String token, int id) {
    Map<String, Object> t = new LinkedHashMap<>();
    t.put("type", "TemplateProcessing");
    t.put("single", single);
    List<Map<String, Object>> pair = new ArrayList<>(single);
    pair.add(Map.of("Sequence", Map.of("id", "B", "type_id", 1)));
    t.put("pair", pair);
    t.put("special_tokens", Map.of(token, Map.of("id", token, "ids", List.of(id), "tokens", List.of(token))));
    return t;
  }

  private static Map<String, Object> special(String token) {
    return Map.of("SpecialToken", Map.of("id", token, "type_id", 0));
  }

  private static Map<String, Object> sequence() {
    return Map.of("Sequence", Map.of("id", "A", "type_id", 0));
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
}
