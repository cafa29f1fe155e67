package io.headscope.model.tokenizer;

import com.fasterxml.jackson.databind.JsonNode;
import io.headscope.model.core.HeadScopeException;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes the byte-level BPE {@code tokenizer.json} of the older GPT-2 / RoBERTa file pair, {@code
 * vocab.json} ({@code {"token": id}}) and {@code merges.txt} (one merge {@code "a b"} a line, in
 * rank order, after a {@code #version} line), as Hugging Face's {@code GPT2TokenizerFast} and {@code
 * RobertaTokenizerFast} build it: ByteLevel pre-tokenizer without a prefix space, a BPE model with no
 * unknown token (every byte is in the vocabulary), ByteLevel decoder.
 *
 * <p>Which family it is comes from the vocabulary itself: with {@code <s>} and {@code </s>} it is
 * RoBERTa ({@code RobertaProcessing}: {@code <s> a </s></s> b </s>}; {@code <s>}, {@code <pad>},
 * {@code </s>}, {@code <unk>} and {@code <mask>} are special tokens, {@code <mask>} taking the space
 * before it as RoBERTa's does); otherwise GPT-2 (no template; {@code <|endoftext|>} is special).
 */
public final class BpeTokenizerJson {
  private static final List<String> ROBERTA_SPECIALS = List.of("<s>", "<pad>", "</s>", "<unk>", "<mask>");
  private static final String GPT2_END = "<|endoftext|>";

  private BpeTokenizerJson() {}

  /** Writes {@code tokenizerJsonOut} for the pair, through a temporary file moved into place. */
  public static void write(Path vocabJson, Path mergesTxt, Path tokenizerJsonOut) throws IOException {
    TokenizerJsonWriter.writeAtomically(toJson(vocabJson, mergesTxt), tokenizerJsonOut);
  }

  /** The {@code tokenizer.json} text for the pair. */
  public static String toJson(Path vocabJson, Path mergesTxt) throws IOException {
    Map<String, Long> vocab = readVocab(vocabJson);
    List<String> merges = readMerges(mergesTxt);
    boolean roberta = vocab.containsKey("<s>") && vocab.containsKey("</s>");

    Map<String, Object> root = new LinkedHashMap<>();
    root.put("version", "1.0");
    root.put("truncation", null);
    root.put("padding", null);
    List<Object> added = new ArrayList<>();
    for (String t : roberta ? ROBERTA_SPECIALS : List.of(GPT2_END)) {
      if (vocab.containsKey(t)) {
        Map<String, Object> token = new LinkedHashMap<>();
        token.put("id", vocab.get(t));
        token.put("content", t);
        token.put("single_word", false);
        token.put("lstrip", t.equals("<mask>")); // "a <mask>" masks the word with its space: "Ġword"
        token.put("rstrip", false);
        token.put("normalized", false);
        token.put("special", true);
        added.add(token);
      }
    }
    added.sort((x, y) -> Long.compare(
        (Long) ((Map<?, ?>) x).get("id"), (Long) ((Map<?, ?>) y).get("id")));
    root.put("added_tokens", added);
    root.put("normalizer", null);
    root.put("pre_tokenizer", byteLevel());
    if (roberta) {
      Map<String, Object> post = new LinkedHashMap<>();
      post.put("type", "RobertaProcessing");
      post.put("sep", List.of("</s>", vocab.get("</s>")));
      post.put("cls", List.of("<s>", vocab.get("<s>")));
      post.put("trim_offsets", true);
      post.put("add_prefix_space", false);
      root.put("post_processor", post);
    } else {
      root.put("post_processor", byteLevel());
    }
    root.put("decoder", byteLevel());

    Map<String, Object> model = new LinkedHashMap<>();
    model.put("type", "BPE");
    model.put("dropout", null);
    model.put("unk_token", null);
    model.put("continuing_subword_prefix", "");
    model.put("end_of_word_suffix", "");
    model.put("fuse_unk", false);
    model.put("byte_fallback", false);
    model.put("vocab", vocab);
    model.put("merges", merges);
    root.put("model", model);
    return TokenizerJsonWriter.pretty(root, vocab.size() * 24 + merges.size() * 16);
  }

  private static Map<String, Object> byteLevel() {
    Map<String, Object> b = new LinkedHashMap<>();
    b.put("type", "ByteLevel");
    b.put("add_prefix_space", false);
    b.put("trim_offsets", true);
    b.put("use_regex", true);
    return b;
  }

  /** {@code vocab.json} in id order (a token written twice keeps its last id, as Python's json does). */
  static Map<String, Long> readVocab(Path vocabJson) {
    JsonNode root = TokenizerFacts.readJson(vocabJson);
    List<Map.Entry<String, Long>> entries = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!e.getValue().canConvertToLong() || e.getValue().asLong() < 0) {
        throw new HeadScopeException(vocabJson + " maps \"" + e.getKey() + "\" to " + e.getValue()
            + ", not to a token id, so it is not a BPE vocabulary.");
      }
      entries.add(Map.entry(e.getKey(), e.getValue().asLong()));
    }
    if (entries.isEmpty()) {
      throw new HeadScopeException(vocabJson + " is empty, so it is not a BPE vocabulary.");
    }
    entries.sort(Map.Entry.comparingByValue());
    Map<String, Long> vocab = new LinkedHashMap<>();
    entries.forEach(e -> vocab.put(e.getKey(), e.getValue()));
    return vocab;
  }

  /** The merges of {@code merges.txt}, each {@code "a b"}; the {@code #version} line and blank lines skipped. */
  static List<String> readMerges(Path mergesTxt) throws IOException {
    if (!Files.isRegularFile(mergesTxt)) {
      throw new HeadScopeException("The merges file " + mergesTxt + " does not exist.");
    }
    List<String> lines;
    try {
      lines = Files.readAllLines(mergesTxt, StandardCharsets.UTF_8);
    } catch (CharacterCodingException e) {
      throw new HeadScopeException(mergesTxt + " is not UTF-8 text, so it is not a merges.txt.", e);
    }
    List<String> merges = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if ((i == 0 && line.startsWith("#version")) || line.isBlank()) {
        continue;
      }
      String[] parts = line.split(" ");
      if (parts.length != 2 || parts[0].isEmpty() || parts[1].isEmpty()) {
        throw new HeadScopeException(mergesTxt + " line " + (i + 1) + " is not two tokens separated by one space.");
      }
      merges.add(line);
    }
    return merges;
  }
}
