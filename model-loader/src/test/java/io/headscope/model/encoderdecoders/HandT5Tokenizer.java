package io.headscope.model.encoderdecoders;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A T5-like Unigram {@code tokenizer.json} written by hand: {@code <pad>}0 {@code </s>}1 {@code <unk>}2 as
 * T5's first three ids, a {@code Metaspace} pre-tokenizer ({@code ▁} before every word), and T5's template
 * {@code $A </s>} (no token in front). The pieces and scores are made up so that the Viterbi path can be
 * summed by hand: a whole word scores -1, the lone {@code ▁} -2 and a letter -3, so every word in the list
 * is one piece ("▁the" at -1 beats "▁" "t" "h" "e" at -11).
 *
 * <p>"the cat sat on the mat" is then {@code ▁the ▁cat ▁sat ▁on ▁the ▁mat </s>} = 4 5 6 9 4 8 1, and "a cat
 * sat on a mat" is 7 5 6 9 7 8 1.
 */
final class HandT5Tokenizer {
  static final String SOURCE = "the cat sat on the mat";
  static final long[] SOURCE_IDS = {4, 5, 6, 9, 4, 8, 1};
  static final String TARGET = "a cat sat on a mat";
  static final long[] TARGET_IDS = {7, 5, 6, 9, 7, 8, 1};
  /** Pieces in id order. */
  static final List<String> PIECES = List.of("<pad>", "</s>", "<unk>", "▁", "▁the", "▁cat", "▁sat", "▁a", "▁mat",
      "▁on", "s", "t", "a", "c", "e", "h", "m", "o", "n");

  private HandT5Tokenizer() {}

  static void write(Path file) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("version", "1.0");
    root.put("truncation", null);
    root.put("padding", null);
    root.put("added_tokens", List.of(added(0, "<pad>"), added(1, "</s>"), added(2, "<unk>")));
    root.put("normalizer", null);
    Map<String, Object> metaspace = new LinkedHashMap<>();
    metaspace.put("type", "Metaspace");
    metaspace.put("replacement", "▁");
    metaspace.put("prepend_scheme", "always");
    metaspace.put("split", true);
    root.put("pre_tokenizer", metaspace);
    Map<String, Object> post = new LinkedHashMap<>();
    post.put("type", "TemplateProcessing");
    post.put("single", List.of(Map.of("Sequence", Map.of("id", "A", "type_id", 0)),
        Map.of("SpecialToken", Map.of("id", "</s>", "type_id", 0))));
    post.put("pair", List.of(Map.of("Sequence", Map.of("id", "A", "type_id", 0)),
        Map.of("SpecialToken", Map.of("id", "</s>", "type_id", 0)),
        Map.of("Sequence", Map.of("id", "B", "type_id", 0)),
        Map.of("SpecialToken", Map.of("id", "</s>", "type_id", 0))));
    post.put("special_tokens", Map.of("</s>", Map.of("id", "</s>", "ids", List.of(1), "tokens", List.of("</s>"))));
    root.put("post_processor", post);
    root.put("decoder", metaspace);
    Map<String, Object> model = new LinkedHashMap<>();
    model.put("type", "Unigram");
    model.put("unk_id", 2);
    List<List<Object>> vocab = new java.util.ArrayList<>();
    for (String p : PIECES) {
      double score = p.startsWith("<") ? 0.0 : p.equals("▁") ? -2.0 : p.startsWith("▁") ? -1.0 : -3.0;
      vocab.add(List.of(p, score));
    }
    model.put("vocab", vocab);
    model.put("byte_fallback", false);
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
}
