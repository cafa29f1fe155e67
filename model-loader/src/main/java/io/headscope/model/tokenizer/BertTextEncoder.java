package io.headscope.model.tokenizer;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.headscope.model.HeadScopeException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Turns one sentence or a pair into BERT input: {@code [CLS] a [SEP]} or {@code [CLS] a [SEP] b
 * [SEP]}, cut to at most {@link #maxLength()} tokens.
 *
 * <p>The wordpieces come from Hugging Face's tokenizer (through DJL) built from a {@code
 * tokenizer.json}, with its own truncation, padding and special tokens switched off; the special
 * tokens, segment ids and truncation are done here. Before the text reaches Hugging Face, two spots
 * where its BERT normalizer differs from Google's {@code tokenization.py} (which trained the models)
 * are evened out, so the ids match Google's:
 *
 * <ul>
 *   <li>lower-casing: Hugging Face lower-cases character by character, so a word-final {@code Σ}
 *       becomes {@code σ}; Python's {@code str.lower()} gives {@code ς}. We write the {@code ς}
 *       ourselves where Python would.
 *   <li>CJK Extension E, U+2B820..U+2B91F: Google splits these ideographs into one token each,
 *       Hugging Face's range starts at U+2B920. We put the spaces around them ourselves.
 * </ul>
 *
 * A {@code [MASK]} (or {@code [SEP]}, {@code [CLS]}, ...) typed literally in the text is kept as that
 * special token, as Hugging Face does; it keeps the segment of the sentence it was typed in.
 */
public final class BertTextEncoder implements AutoCloseable {
  /** Room for {@code [CLS] a [SEP] b [SEP]} with at least one wordpiece of each sentence. */
  public static final int MIN_LENGTH = 5;

  private static final String CLS = "[CLS]";
  private static final String SEP = "[SEP]";
  private static final String MASK = "[MASK]";

  private final HuggingFaceTokenizer hf;
  private final int maxLength;
  private final String[] idToToken;
  private final long clsId;
  private final long sepId;
  private final long maskId;
  private final boolean lowercase;
  private final boolean chineseChars;

  private BertTextEncoder(HuggingFaceTokenizer hf, int maxLength, Vocabulary vocab) {
    this.hf = hf;
    this.maxLength = maxLength;
    this.idToToken = vocab.idToToken;
    this.clsId = vocab.id(CLS);
    this.sepId = vocab.id(SEP);
    this.maskId = vocab.id(MASK);
    this.lowercase = vocab.lowercase;
    this.chineseChars = vocab.chineseChars;
  }

  /**
   * Opens the tokenizer in {@code tokenizerJson}.
   *
   * @param maxLength the most tokens an encoding may have, special tokens included (the model's
   *     {@code max_position_embeddings}); at least {@link #MIN_LENGTH}
   * @throws HeadScopeException if the file is missing, unreadable or not a BERT tokenizer
   */
  public static BertTextEncoder open(Path tokenizerJson, int maxLength) {
    if (maxLength < MIN_LENGTH) {
      throw new IllegalArgumentException("maxLength " + maxLength + " < " + MIN_LENGTH);
    }
    Vocabulary vocab = Vocabulary.read(tokenizerJson);
    HuggingFaceTokenizer hf;
    try {
      hf = HuggingFaceTokenizer.newInstance(
          tokenizerJson,
          Map.of("addSpecialTokens", "false", "truncation", "false", "padding", "false"));
    } catch (IOException | RuntimeException e) {
      throw new HeadScopeException(
          "Cannot load the tokenizer " + tokenizerJson + ": " + e.getMessage() + ".", e);
    }
    return new BertTextEncoder(hf, maxLength, vocab);
  }

  /** {@code [CLS] a [SEP]}. */
  public Encoding encode(String a) {
    return encode(a, null);
  }

  /**
   * {@code [CLS] a [SEP] b [SEP]}, or {@code [CLS] a [SEP]} when {@code b} is null. If that is longer
   * than {@link #maxLength()}, the last wordpiece of the longer sentence is dropped until it fits
   * (of the second on a tie), as Google's {@code _truncate_seq_pair} does.
   *
   * @throws HeadScopeException if {@code a}, or a non-null {@code b}, has no token at all
   */
  public Encoding encode(String a, String b) {
    Pieces first = a == null ? Pieces.NONE : wordpieces(a);
    if (first.size() == 0) {
      throw new HeadScopeException("The text is empty: type a sentence.");
    }
    Pieces second = null;
    if (b != null) {
      second = wordpieces(b);
      if (second.size() == 0) {
        throw new HeadScopeException(
            "The second sentence is empty: type a second sentence, or leave it out to encode one sentence.");
      }
    }

    int na = first.size();
    int nb = second == null ? 0 : second.size();
    int budget = maxLength - (second == null ? 2 : 3);
    while (na + nb > budget) {
      if (na > nb) {
        na--;
      } else {
        nb--;
      }
    }
    int dropped = first.size() + (second == null ? 0 : second.size()) - na - nb;

    int n = na + nb + (second == null ? 2 : 3);
    List<String> tokens = new ArrayList<>(n);
    long[] ids = new long[n];
    long[] segments = new long[n];
    int t = 0;
    tokens.add(CLS);
    ids[t++] = clsId;
    for (int i = 0; i < na; i++) {
      tokens.add(first.tokens[i]);
      ids[t++] = first.ids[i];
    }
    tokens.add(SEP);
    ids[t++] = sepId;
    int secondStart = -1;
    if (second != null) {
      secondStart = t;
      for (int i = 0; i < nb; i++) {
        tokens.add(second.tokens[i]);
        ids[t++] = second.ids[i];
      }
      tokens.add(SEP);
      ids[t++] = sepId;
      Arrays.fill(segments, secondStart, n, 1L);
    }
    return new Encoding(tokens, ids, segments, secondStart, dropped);
  }

  /** The wordpieces of one sentence, no special tokens added, nothing cut. */
  public List<String> tokenize(String text) {
    return List.of(wordpieces(text == null ? "" : text).tokens);
  }

  /** The most tokens an encoding may have, special tokens included. */
  public int maxLength() {
    return maxLength;
  }

  /** The id of {@code [MASK]}. */
  public long maskId() {
    return maskId;
  }

  public long clsId() {
    return clsId;
  }

  public long sepId() {
    return sepId;
  }

  /**
   * The token of a vocabulary id, as shown for predictions ({@code "##ing"}, {@code "[MASK]"}). An id
   * the tokenizer has no token for (a model whose embedding matrix is larger than its vocabulary)
   * is shown as {@code <id 12345>}.
   */
  public String vocabToken(long id) {
    if (id >= 0 && id < idToToken.length && idToToken[(int) id] != null) {
      return idToToken[(int) id];
    }
    if (id < 0) {
      throw new IllegalArgumentException("negative token id " + id);
    }
    return "<id " + id + ">";
  }

  /** One more than the largest id of the vocabulary (30522 for bert-base-uncased). */
  public int vocabSize() {
    return idToToken.length;
  }

  @Override
  public void close() {
    hf.close();
  }

  // --- wordpieces --------------------------------------------------------------------------

  private record Pieces(String[] tokens, long[] ids) {
    static final Pieces NONE = new Pieces(new String[0], new long[0]);

    int size() {
      return ids.length;
    }
  }

  private Pieces wordpieces(String text) {
    ai.djl.huggingface.tokenizers.Encoding e = hf.encode(prepare(text), false, false);
    return new Pieces(e.getTokens(), e.getIds());
  }

  /**
   * The text as Hugging Face should see it: unpaired surrogates dropped (Google's cleaning drops
   * them too; they cannot cross into Rust as UTF-8), final sigmas and CJK Extension E as Google
   * treats them.
   */
  String prepare(String text) {
    StringBuilder out = null;
    for (int i = 0; i < text.length(); ) {
      int cp = text.codePointAt(i);
      int len = Character.charCount(cp);
      String replacement = null;
      if (Character.isSurrogate((char) cp) && len == 1) {
        replacement = "";
      } else if (cp == 0x03A3 && lowercase && GoogleText.isFinalSigma(text, i)) {
        replacement = "\u03C2";
      } else if (chineseChars && cp >= 0x2B820 && cp <= 0x2B91F) {
        replacement = " " + Character.toString(cp) + " ";
      }
      if (replacement != null && out == null) {
        out = new StringBuilder(text.length() + 16).append(text, 0, i);
      }
      if (out != null) {
        if (replacement != null) {
          out.append(replacement);
        } else {
          out.appendCodePoint(cp);
        }
      }
      i += len;
    }
    return out == null ? text : out.toString();
  }

  /** Character classes of Google's BasicTokenizer needed to reproduce its lower-casing. */
  static final class GoogleText {
    private GoogleText() {}

    /**
     * Whether Python's {@code str.lower()} would write the {@code Σ} at {@code i} as {@code ς}: a
     * cased letter before it and none after it, skipping case-ignorable characters. Google lowers
     * each word after dropping control characters; a word ends at whitespace, which is neither cased
     * nor case-ignorable, so the whole text can be scanned with the dropped characters skipped.
     */
    static boolean isFinalSigma(String text, int i) {
      int j = i;
      int before = -1;
      while (j > 0) {
        int cp = text.codePointBefore(j);
        j -= Character.charCount(cp);
        if (!droppedByCleaning(cp) && !isCaseIgnorable(cp)) {
          before = cp;
          break;
        }
      }
      if (before < 0 || !isCased(before)) {
        return false;
      }
      j = i + 1;
      while (j < text.length()) {
        int cp = text.codePointAt(j);
        j += Character.charCount(cp);
        if (!droppedByCleaning(cp) && !isCaseIgnorable(cp)) {
          return !isCased(cp);
        }
      }
      return true;
    }

    /** {@code _clean_text} drops NUL, U+FFFD and category C* except tab, newline, return. */
    static boolean droppedByCleaning(int cp) {
      if (cp == '\t' || cp == '\n' || cp == '\r') {
        return false;
      }
      if (cp == 0 || cp == 0xFFFD) {
        return true;
      }
      return switch (Character.getType(cp)) {
        case Character.CONTROL, Character.FORMAT, Character.SURROGATE, Character.PRIVATE_USE,
            Character.UNASSIGNED -> true;
        default -> false;
      };
    }

    static boolean isCased(int cp) {
      return Character.isLowerCase(cp) || Character.isUpperCase(cp) || Character.isTitleCase(cp);
    }

    /** Case_Ignorable: Mn, Me, Cf, Lm, Sk, or Word_Break MidLetter, MidNumLet, Single_Quote. */
    static boolean isCaseIgnorable(int cp) {
      switch (Character.getType(cp)) {
        case Character.NON_SPACING_MARK, Character.ENCLOSING_MARK, Character.FORMAT,
            Character.MODIFIER_LETTER, Character.MODIFIER_SYMBOL -> {
          return true;
        }
        default -> {
          return switch (cp) {
            case '\'', '.', ':', 0x00B7, 0x0387, 0x055F, 0x05F4, 0x2018, 0x2019, 0x2024, 0x2027,
                0xFE13, 0xFE52, 0xFE55, 0xFF07, 0xFF0E, 0xFF1A -> true;
            default -> false;
          };
        }
      }
    }
  }

  // --- the vocabulary of tokenizer.json ----------------------------------------------------

  /** The id-to-token table and the normalizer flags of a {@code tokenizer.json}. */
  private static final class Vocabulary {
    final String[] idToToken;
    final Map<String, Long> tokenToId;
    final boolean lowercase;
    final boolean chineseChars;
    final Path file;

    private Vocabulary(Path file, String[] idToToken, Map<String, Long> tokenToId, boolean lowercase,
        boolean chineseChars) {
      this.file = file;
      this.idToToken = idToToken;
      this.tokenToId = tokenToId;
      this.lowercase = lowercase;
      this.chineseChars = chineseChars;
    }

    long id(String token) {
      Long id = tokenToId.get(token);
      if (id == null) {
        throw new HeadScopeException(file + " has no " + token + " token, so it is not a BERT tokenizer.");
      }
      return id;
    }

    static Vocabulary read(Path file) {
      if (!Files.isRegularFile(file)) {
        throw new HeadScopeException("The tokenizer file " + file + " does not exist.");
      }
      JsonNode root;
      try {
        root = new ObjectMapper().readTree(file.toFile());
      } catch (IOException e) {
        throw new HeadScopeException(file + " is not a readable tokenizer.json: " + e.getMessage(), e);
      }
      JsonNode vocab = root == null ? null : root.path("model").get("vocab");
      if (vocab == null || !vocab.isObject()) {
        throw new HeadScopeException(file + " has no WordPiece vocabulary (model.vocab), so it is not a BERT tokenizer.");
      }
      Map<String, Long> tokenToId = new HashMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = vocab.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        tokenToId.put(e.getKey(), e.getValue().asLong());
      }
      for (JsonNode added : root.path("added_tokens")) {
        if (added.has("content") && added.has("id")) {
          tokenToId.putIfAbsent(added.get("content").asText(), added.get("id").asLong());
        }
      }
      long max = tokenToId.values().stream().mapToLong(Long::longValue).max().orElse(-1);
      if (max >= Integer.MAX_VALUE - 8 || tokenToId.values().stream().anyMatch(id -> id < 0)) {
        throw new HeadScopeException(file + " has token ids out of range.");
      }
      String[] idToToken = new String[(int) max + 1];
      tokenToId.forEach((token, id) -> {
        if (idToToken[id.intValue()] == null) {
          idToToken[id.intValue()] = token;
        }
      });
      JsonNode normalizer = root.path("normalizer");
      boolean bert = "BertNormalizer".equals(normalizer.path("type").asText());
      return new Vocabulary(file, idToToken, tokenToId,
          bert && normalizer.path("lowercase").asBoolean(false),
          bert && normalizer.path("handle_chinese_chars").asBoolean(false));
    }
  }
}
