package io.headscope.model.tokenizer;

import io.headscope.model.core.HeadScopeException;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes the Hugging Face {@code tokenizer.json} of a BERT WordPiece vocabulary, the file {@code
 * BertTokenizerFast.from_pretrained(dir).save_pretrained(...)} produces for a folder holding only
 * {@code vocab.txt}: BertNormalizer, BertPreTokenizer, WordPiece model ({@code [UNK]}, {@code ##},
 * 100 characters per word), the {@code [CLS] $A [SEP] $B [SEP]} template and the five special
 * tokens as added tokens. The text is laid out as {@code serde_json}'s pretty printer does.
 */
public final class TokenizerJsonWriter {
  /** The special tokens of every BERT vocabulary, as Hugging Face registers them. */
  public static final List<String> SPECIAL_TOKENS =
      List.of("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]");

  private TokenizerJsonWriter() {}

  /**
   * Reads {@code vocab.txt}: line {@code i} (from 0) is the token of id {@code i}. Lines are split
   * as Python's universal newlines do ({@code \n}, {@code \r\n}, {@code \r}) and kept otherwise
   * unchanged, as Hugging Face's {@code load_vocab} does.
   *
   * @throws HeadScopeException if the file is not UTF-8 text
   */
  public static List<String> readVocab(Path vocabTxt) throws IOException {
    try {
      return List.copyOf(Files.readAllLines(vocabTxt, StandardCharsets.UTF_8));
    } catch (CharacterCodingException e) {
      throw new HeadScopeException(vocabTxt + " is not UTF-8 text, so it cannot be a BERT vocabulary.", e);
    }
  }

  /** The {@code tokenizer.json} text for the vocabulary in {@code vocabTxt}. */
  public static String toJson(Path vocabTxt, boolean lowercase) throws IOException {
    return toJson(readVocab(vocabTxt), lowercase, vocabTxt.toString());
  }

  /** The {@code tokenizer.json} text for a vocabulary given as its lines (id = index). */
  public static String toJson(List<String> vocab, boolean lowercase) {
    return toJson(vocab, lowercase, "The vocabulary");
  }

  /**
   * Writes {@code tokenizer.json} for {@code vocabTxt} through a temporary file in the same folder,
   * moved into place only when complete.
   */
  public static void write(Path vocabTxt, boolean lowercase, Path tokenizerJsonOut) throws IOException {
    writeAtomically(toJson(vocabTxt, lowercase), tokenizerJsonOut);
  }

  /**
   * Writes {@code text} to {@code out} through a temporary file in the same folder, moved into place
   * only when complete, so a reader never sees half a tokenizer.
   */
  static void writeAtomically(String text, Path out) throws IOException {
    byte[] json = text.getBytes(StandardCharsets.UTF_8);
    Path target = out.toAbsolutePath().normalize();
    Path temp = Files.createTempFile(target.getParent(), "." + target.getFileName() + ".", ".part");
    try {
      Files.write(temp, json);
      try {
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
      }
      temp = null;
    } finally {
      if (temp != null) {
        Files.deleteIfExists(temp);
      }
    }
  }

  private static String toJson(List<String> vocab, boolean lowercase, String source) {
    // Like a Python dict filled in file order: a repeated token keeps its last id.
    Map<String, Integer> ids = new LinkedHashMap<>();
    for (int i = 0; i < vocab.size(); i++) {
      ids.put(vocab.get(i), i);
    }
    List<Map.Entry<String, Integer>> byId = new ArrayList<>(ids.entrySet());
    byId.sort(Map.Entry.comparingByValue());
    for (String special : SPECIAL_TOKENS) {
      if (!ids.containsKey(special)) {
        throw new HeadScopeException(
            source + " has no " + special + " token, so it is not a BERT WordPiece vocabulary.");
      }
    }

    Map<String, Object> root = new LinkedHashMap<>();
    root.put("version", "1.0");
    root.put("truncation", null);
    root.put("padding", null);
    List<Object> added = new ArrayList<>();
    SPECIAL_TOKENS.stream()
        .sorted(Comparator.comparing(ids::get))
        .forEach(
            t -> {
              Map<String, Object> token = new LinkedHashMap<>();
              token.put("id", ids.get(t));
              token.put("content", t);
              token.put("single_word", false);
              token.put("lstrip", false);
              token.put("rstrip", false);
              token.put("normalized", false);
              token.put("special", true);
              added.add(token);
            });
    root.put("added_tokens", added);

    Map<String, Object> normalizer = new LinkedHashMap<>();
    normalizer.put("type", "BertNormalizer");
    normalizer.put("clean_text", true);
    normalizer.put("handle_chinese_chars", true);
    normalizer.put("strip_accents", null); // null: strip accents exactly when lower-casing
    normalizer.put("lowercase", lowercase);
    root.put("normalizer", normalizer);
    root.put("pre_tokenizer", Map.of("type", "BertPreTokenizer"));

    Map<String, Object> post = new LinkedHashMap<>();
    post.put("type", "TemplateProcessing");
    post.put(
        "single", List.of(special("[CLS]", 0), sequence("A", 0), special("[SEP]", 0)));
    post.put(
        "pair",
        List.of(
            special("[CLS]", 0),
            sequence("A", 0),
            special("[SEP]", 0),
            sequence("B", 1),
            special("[SEP]", 1)));
    Map<String, Object> specials = new LinkedHashMap<>();
    for (String t : List.of("[CLS]", "[SEP]")) {
      Map<String, Object> s = new LinkedHashMap<>();
      s.put("id", t);
      s.put("ids", List.of(ids.get(t)));
      s.put("tokens", List.of(t));
      specials.put(t, s);
    }
    post.put("special_tokens", specials);
    root.put("post_processor", post);

    Map<String, Object> decoder = new LinkedHashMap<>();
    decoder.put("type", "WordPiece");
    decoder.put("prefix", "##");
    decoder.put("cleanup", true);
    root.put("decoder", decoder);

    Map<String, Object> model = new LinkedHashMap<>();
    model.put("type", "WordPiece");
    model.put("unk_token", "[UNK]");
    model.put("continuing_subword_prefix", "##");
    model.put("max_input_chars_per_word", 100);
    Map<String, Object> vocabJson = new LinkedHashMap<>();
    for (Map.Entry<String, Integer> e : byId) {
      vocabJson.put(e.getKey(), e.getValue());
    }
    model.put("vocab", vocabJson);
    root.put("model", model);

    return pretty(root, vocab.size() * 24);
  }

  /** {@code value} (maps, lists, strings, numbers, booleans, null) laid out as serde_json does. */
  static String pretty(Object value, int sizeHint) {
    StringBuilder out = new StringBuilder(sizeHint);
    PrettyJson.value(out, value, 0);
    return out.toString();
  }

  private static Map<String, Object> special(String token, int typeId) {
    Map<String, Object> inner = new LinkedHashMap<>();
    inner.put("id", token);
    inner.put("type_id", typeId);
    return Map.of("SpecialToken", inner);
  }

  private static Map<String, Object> sequence(String which, int typeId) {
    Map<String, Object> inner = new LinkedHashMap<>();
    inner.put("id", which);
    inner.put("type_id", typeId);
    return Map.of("Sequence", inner);
  }

  /** JSON laid out as Rust's {@code serde_json::to_string_pretty}: two-space indent, raw UTF-8. */
  private static final class PrettyJson {
    private PrettyJson() {}

    static void value(StringBuilder out, Object v, int depth) {
      if (v == null) {
        out.append("null");
      } else if (v instanceof String s) {
        string(out, s);
      } else if (v instanceof Number || v instanceof Boolean) {
        out.append(v);
      } else if (v instanceof Map<?, ?> map) {
        if (map.isEmpty()) {
          out.append("{}");
          return;
        }
        out.append('{');
        boolean first = true;
        for (Map.Entry<?, ?> e : map.entrySet()) {
          out.append(first ? "\n" : ",\n");
          first = false;
          indent(out, depth + 1);
          string(out, (String) e.getKey());
          out.append(": ");
          value(out, e.getValue(), depth + 1);
        }
        out.append('\n');
        indent(out, depth);
        out.append('}');
      } else if (v instanceof List<?> list) {
        if (list.isEmpty()) {
          out.append("[]");
          return;
        }
        out.append('[');
        boolean first = true;
        for (Object item : list) {
          out.append(first ? "\n" : ",\n");
          first = false;
          indent(out, depth + 1);
          value(out, item, depth + 1);
        }
        out.append('\n');
        indent(out, depth);
        out.append(']');
      } else {
        throw new IllegalArgumentException("not a JSON value: " + v.getClass());
      }
    }

    private static void indent(StringBuilder out, int depth) {
      out.append("  ".repeat(depth));
    }

    private static void string(StringBuilder out, String s) {
      out.append('"');
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        switch (c) {
          case '"' -> out.append("\\\"");
          case '\\' -> out.append("\\\\");
          case '\b' -> out.append("\\b");
          case '\f' -> out.append("\\f");
          case '\n' -> out.append("\\n");
          case '\r' -> out.append("\\r");
          case '\t' -> out.append("\\t");
          default -> {
            if (c < 0x20) {
              out.append(String.format("\\u%04x", (int) c));
            } else {
              out.append(c);
            }
          }
        }
      }
      out.append('"');
    }
  }
}
