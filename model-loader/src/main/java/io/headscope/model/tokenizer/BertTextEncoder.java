package io.headscope.model.tokenizer;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.headscope.model.core.HeadScopeException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns one sentence or a pair into BERT input: {@code [CLS] a [SEP]} or {@code [CLS] a [SEP] b
 * [SEP]}, cut to at most {@link #maxLength()} tokens.
 *
 * <p>The wordpieces come from Hugging Face's tokenizer (through DJL) built from a {@code
 * tokenizer.json}, with its own truncation, padding and special tokens switched off; the special
 * tokens, segment ids and truncation are done here. For a BERT normalizer, the text first goes
 * through {@link GoogleTextRules}, which evens out the few places where Hugging Face's normalizer
 * differs from Google's {@code tokenization.py} (which made the models' training data), so that the
 * ids are Google's.
 *
 * A {@code [MASK]} (or {@code [SEP]}, {@code [CLS]}, ...) typed literally in the text is kept as that
 * special token, as Hugging Face does; it keeps the segment of the sentence it was typed in.
 */
public final class BertTextEncoder implements TextEncoder {
  /** Room for {@code [CLS] a [SEP] b [SEP]} with at least one wordpiece of each sentence. */
  public static final int MIN_LENGTH = 5;

  private static final String CLS = "[CLS]";
  private static final String SEP = "[SEP]";
  private static final String MASK = "[MASK]";
  private static final String UNK = "[UNK]";

  private final HuggingFaceTokenizer hf;
  private final int maxLength;
  private final String[] idToToken;
  private final long clsId;
  private final long sepId;
  private final long maskId;
  private final long unkId;
  private final boolean googleRules;
  private final boolean lowercase;
  private final boolean stripAccents;
  private final List<String> addedTokens;
  private final Set<Long> specialIds;

  private BertTextEncoder(HuggingFaceTokenizer hf, int maxLength, Vocabulary vocab) {
    this.hf = hf;
    this.maxLength = maxLength;
    this.idToToken = vocab.idToToken;
    this.clsId = vocab.id(CLS);
    this.sepId = vocab.id(SEP);
    this.maskId = vocab.id(MASK);
    this.unkId = vocab.id(UNK);
    this.googleRules = vocab.bertNormalizer;
    this.lowercase = vocab.lowercase;
    this.stripAccents = vocab.stripAccents;
    this.addedTokens = vocab.addedTokens;
    Set<Long> special = new HashSet<>(List.of(clsId, sepId));
    addedTokens.forEach(t -> special.add(vocab.id(t)));
    this.specialIds = Set.copyOf(special);
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
    return open(tokenizerJson, Vocabulary.read(tokenizerJson), maxLength);
  }

  /**
   * {@link #open(Path, int)} with the file's JSON already read ({@link TextEncoders} reads it to choose the
   * encoder): the 700 KB of bert-base's vocabulary are parsed once per model load, not twice.
   */
  static BertTextEncoder open(Path tokenizerJson, com.fasterxml.jackson.databind.JsonNode root, int maxLength) {
    if (maxLength < MIN_LENGTH) {
      throw new IllegalArgumentException("maxLength " + maxLength + " < " + MIN_LENGTH);
    }
    return open(tokenizerJson, new Vocabulary(tokenizerJson, root), maxLength);
  }

  private static BertTextEncoder open(Path tokenizerJson, Vocabulary vocab, int maxLength) {
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
  @Override
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
  @Override
  public Encoding encode(String a, String b) {
    return annotate(a, b).encoding();
  }

  /**
   * {@link #encode(String, String)} with its words: those of Hugging Face's BERT pre-tokenizer (split
   * at spaces and around each punctuation mark and CJK character), {@code ##} pieces in the word of
   * the piece before them.
   */
  @Override
  public AnnotatedEncoding annotate(String a, String b) {
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
    boolean[] special = new boolean[n];
    int[] wordOf = new int[n];
    int t = 0;
    tokens.add(CLS);
    special[t] = true;
    wordOf[t] = -1;
    ids[t++] = clsId;
    for (int i = 0; i < na; i++) {
      tokens.add(first.tokens[i]);
      wordOf[t] = first.wordOf[i];
      ids[t++] = first.ids[i];
    }
    int wordsOfA = na == 0 ? 0 : first.wordOf[na - 1] + 1;
    tokens.add(SEP);
    special[t] = true;
    wordOf[t] = -1;
    ids[t++] = sepId;
    int secondStart = -1;
    int wordsOfB = 0;
    if (second != null) {
      secondStart = t;
      for (int i = 0; i < nb; i++) {
        tokens.add(second.tokens[i]);
        wordOf[t] = wordsOfA + second.wordOf[i];
        ids[t++] = second.ids[i];
      }
      wordsOfB = nb == 0 ? 0 : second.wordOf[nb - 1] + 1;
      tokens.add(SEP);
      special[t] = true;
      wordOf[t] = -1;
      ids[t++] = sepId;
      Arrays.fill(segments, secondStart, n, 1L);
    }
    return new AnnotatedEncoding(new Encoding(tokens, ids, segments, secondStart, dropped), special, wordOf,
        wordsOfA + wordsOfB);
  }

  /** The wordpieces of one sentence, no special tokens added, nothing cut. */
  @Override
  public List<String> tokenize(String text) {
    return List.of(wordpieces(text == null ? "" : text).tokens);
  }

  /**
   * A sentence given as its words (a treebank's syntactic words): each word is WordPiece-tokenized on
   * its own and the input is {@code [CLS] pieces... [SEP]}; a word the text rules delete entirely
   * becomes {@code [UNK]}. Nothing is cut: {@link WordEncoding#fits()} says whether the model can take
   * it.
   */
  @Override
  public WordEncoding encodeWords(List<String> words) {
    List<String> tokens = new ArrayList<>();
    List<Long> ids = new ArrayList<>();
    List<Integer> wordOf = new ArrayList<>();
    tokens.add(CLS);
    ids.add(clsId);
    wordOf.add(0);
    for (int w = 0; w < words.size(); w++) {
      Pieces p = wordpieces(words.get(w));
      if (p.size() == 0) {
        tokens.add(UNK);
        ids.add(unkId);
        wordOf.add(w + 1);
        continue;
      }
      for (int i = 0; i < p.size(); i++) {
        tokens.add(p.tokens[i]);
        ids.add(p.ids[i]);
        wordOf.add(w + 1);
      }
    }
    tokens.add(SEP);
    ids.add(sepId);
    wordOf.add(words.size() + 1);
    long[] idArray = ids.stream().mapToLong(Long::longValue).toArray();
    Encoding e = new Encoding(tokens, idArray, new long[idArray.length], -1, 0);
    return new WordEncoding(e, wordOf.stream().mapToInt(Integer::intValue).toArray(), words.size() + 2,
        idArray.length <= maxLength);
  }

  /**
   * The vocabulary id of a word that is one wordpiece of this model (after its text rules: an uncased
   * model lower-cases), for targets such as {@code ablate --target her}. A continuation piece written as
   * the vocabulary writes it ({@code ##ing}, as predictions show it) is looked up as it is.
   */
  public long singleWordpieceId(String word) {
    if (word != null && word.startsWith("##") && word.length() > 2) {
      for (int id = 0; id < idToToken.length; id++) {
        if (word.equals(idToToken[id])) {
          return id;
        }
      }
      throw TextEncoder.notInVocabulary(word, null);
    }
    Pieces p = wordpieces(word == null ? "" : word);
    if (p.ids.length != 1) {
      throw TextEncoder.notInVocabulary(word, "it is " + (p.ids.length == 0 ? "no wordpiece"
          : p.ids.length + " wordpieces (" + String.join(" ", p.tokens) + ")") + "; give a word that is a single wordpiece.");
    }
    if (p.ids[0] == unkId && !UNK.equals(word)) {
      // [UNK] stands for every word the vocabulary lacks: following it follows none of them
      throw TextEncoder.notInVocabulary(word, "it would be read as " + UNK + ".");
    }
    return p.ids[0];
  }

  /** {@link #singleWordpieceId}: BERT's targets keep their rules. */
  @Override
  public long singleTokenId(String word) {
    return singleWordpieceId(word);
  }

  /** The most tokens an encoding may have, special tokens included. */
  @Override
  public int maxLength() {
    return maxLength;
  }

  /** The id of {@code [MASK]}. */
  @Override
  public long maskId() {
    return maskId;
  }

  /** {@code [CLS]}, {@code [SEP]} and every added token of the tokenizer ({@code [PAD]}, {@code [MASK]}, ...). */
  @Override
  public Set<Long> specialIds() {
    return specialIds;
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
  @Override
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
  @Override
  public int vocabSize() {
    return idToToken.length;
  }

  @Override
  public void close() {
    hf.close();
  }

  // --- wordpieces --------------------------------------------------------------------------

  /** @param wordOf each piece's word in its sentence, from 0 (see {@link HfTextEncoder#wordRuns}) */
  private record Pieces(String[] tokens, long[] ids, int[] wordOf) {
    static final Pieces NONE = new Pieces(new String[0], new long[0], new int[0]);

    int size() {
      return ids.length;
    }
  }

  private Pieces wordpieces(String text) {
    ai.djl.huggingface.tokenizers.Encoding e = hf.encode(prepare(text), false, false);
    return new Pieces(e.getTokens(), e.getIds(), HfTextEncoder.wordRuns(e.getWordIds()));
  }

  /** The text as Hugging Face should see it to split it as Google does (see {@link GoogleTextRules}). */
  String prepare(String text) {
    return googleRules
        ? GoogleTextRules.forHuggingFace(text, lowercase, stripAccents, addedTokens)
        : GoogleTextRules.withoutUnpairedSurrogates(text);
  }

  // --- the vocabulary of tokenizer.json ----------------------------------------------------

  /** The id-to-token table, the added tokens and the normalizer flags of a {@code tokenizer.json}. */
  private static final class Vocabulary {
    final Path file;
    final String[] idToToken;
    final Map<String, Long> tokenToId;
    final List<String> addedTokens;
    /** A BERT normalizer that cleans text and splits CJK, with the BERT pre-tokenizer. */
    final boolean bertNormalizer;
    final boolean lowercase;
    final boolean stripAccents;

    private Vocabulary(Path file, JsonNode root) {
      this.file = file;
      JsonNode vocab = root == null ? null : root.path("model").get("vocab");
      if (vocab == null || !vocab.isObject()) {
        throw new HeadScopeException(
            file + " has no WordPiece vocabulary (model.vocab), so it is not a BERT tokenizer.");
      }
      tokenToId = new HashMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = vocab.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        tokenToId.put(e.getKey(), e.getValue().asLong(-1));
      }
      List<String> added = new ArrayList<>();
      for (JsonNode token : root.path("added_tokens")) {
        if (token.hasNonNull("content") && token.hasNonNull("id")) {
          added.add(token.get("content").asText());
          tokenToId.putIfAbsent(token.get("content").asText(), token.get("id").asLong(-1));
        }
      }
      addedTokens = List.copyOf(added);
      long max = tokenToId.values().stream().mapToLong(Long::longValue).max().orElse(-1);
      if (max >= Integer.MAX_VALUE - 8 || tokenToId.containsValue(-1L)
          || tokenToId.values().stream().anyMatch(id -> id < 0)) {
        throw new HeadScopeException(file + " has token ids that are not small non-negative numbers.");
      }
      idToToken = new String[(int) max + 1];
      tokenToId.forEach((token, id) -> {
        if (idToToken[id.intValue()] == null) {
          idToToken[id.intValue()] = token;
        }
      });

      JsonNode normalizer = root.path("normalizer");
      bertNormalizer = "BertNormalizer".equals(normalizer.path("type").asText())
          && normalizer.path("clean_text").asBoolean(true)
          && normalizer.path("handle_chinese_chars").asBoolean(true)
          && "BertPreTokenizer".equals(root.path("pre_tokenizer").path("type").asText());
      lowercase = normalizer.path("lowercase").asBoolean(true);
      JsonNode strip = normalizer.get("strip_accents");
      stripAccents = strip == null || strip.isNull() ? lowercase : strip.asBoolean();
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
      try {
        return new Vocabulary(file, new ObjectMapper().readTree(file.toFile()));
      } catch (JsonProcessingException e) {
        throw new HeadScopeException(file + " is not valid JSON, so it is not a tokenizer.json.", e);
      } catch (IOException e) {
        throw new HeadScopeException("Cannot read " + file + ": " + e.getMessage() + ".", e);
      }
    }
  }
}
