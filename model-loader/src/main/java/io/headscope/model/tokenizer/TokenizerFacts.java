package io.headscope.model.tokenizer;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.headscope.model.core.HeadScopeException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What HeadScope needs to know of a {@code tokenizer.json} beyond what Hugging Face's tokenizer
 * computes: the id-to-token table, the special tokens, the template and the kind of model.
 */
final class TokenizerFacts {
  /** Mask tokens as the families spell them: BERT, ALBERT, ELECTRA; RoBERTa, XLM-R. */
  private static final List<String> MASK_SPELLINGS = List.of("[MASK]", "<mask>");

  final Path file;
  /** {@code model.type}: {@code WordPiece}, {@code BPE}, {@code Unigram}. */
  final String modelType;
  final String[] idToToken;
  final Map<String, Long> tokenToId;
  final Set<Long> specialIds;
  final long unkId;
  final long maskId;
  final SpecialTemplate template;
  final JsonNode root;

  private TokenizerFacts(Path file, JsonNode root) {
    this.file = file;
    this.root = root;
    JsonNode model = root.path("model");
    modelType = model.path("type").asText("");
    JsonNode vocab = model.get("vocab");
    tokenToId = new HashMap<>();
    if (vocab != null && vocab.isObject()) { // WordPiece, BPE, WordLevel: {"token": id}
      for (Iterator<Map.Entry<String, JsonNode>> it = vocab.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        tokenToId.put(e.getKey(), e.getValue().canConvertToLong() ? e.getValue().asLong() : -1L);
      }
    } else if (vocab != null && vocab.isArray()) { // Unigram: [["piece", score], ...], id = index
      for (int i = 0; i < vocab.size(); i++) {
        tokenToId.putIfAbsent(vocab.get(i).path(0).asText(), (long) i);
      }
    } else {
      throw new HeadScopeException(file + " has no vocabulary (model.vocab), so it is not a tokenizer.json.");
    }
    specialIds = new HashSet<>();
    for (JsonNode token : root.path("added_tokens")) {
      if (token.hasNonNull("content") && token.path("id").canConvertToLong()) {
        long id = token.get("id").asLong();
        tokenToId.putIfAbsent(token.get("content").asText(), id);
        if (token.path("special").asBoolean(false)) {
          specialIds.add(id);
        }
      }
    }
    long max = -1;
    for (long id : tokenToId.values()) {
      if (id < 0 || id >= Integer.MAX_VALUE - 8) {
        throw new HeadScopeException(file + " has token ids that are not small non-negative numbers.");
      }
      max = Math.max(max, id);
    }
    idToToken = new String[(int) max + 1];
    tokenToId.forEach((token, id) -> {
      if (idToToken[id.intValue()] == null || token.compareTo(idToToken[id.intValue()]) < 0) {
        idToToken[id.intValue()] = token; // two tokens on one id: the same one every time
      }
    });

    if (model.path("unk_id").canConvertToLong()) {
      unkId = model.get("unk_id").asLong();
    } else {
      unkId = tokenToId.getOrDefault(model.path("unk_token").asText(""), TextEncoder.NO_TOKEN);
    }
    long mask = TextEncoder.NO_TOKEN;
    for (String m : MASK_SPELLINGS) {
      Long id = tokenToId.get(m);
      if (id != null && specialIds.contains(id)) {
        mask = id;
        break;
      }
    }
    maskId = mask;
    template = SpecialTemplate.of(root.get("post_processor"), tokenToId::get, file);
    template.pair().forEach(p -> {
      if (p instanceof SpecialTemplate.Special s) {
        specialIds.add(s.id());
      }
    });
  }

  /** Whether the text rules are BERT's (a BertNormalizer and the BERT pre-tokenizer). */
  boolean bertTextRules() {
    return "BertNormalizer".equals(root.path("normalizer").path("type").asText())
        && "BertPreTokenizer".equals(root.path("pre_tokenizer").path("type").asText());
  }

  static TokenizerFacts read(Path file) {
    return new TokenizerFacts(file, readJson(file));
  }

  /** The JSON of a tokenizer file, refusing in one line a missing, unreadable or non-JSON one. */
  static JsonNode readJson(Path file) {
    if (!Files.isRegularFile(file)) {
      throw new HeadScopeException("The tokenizer file " + file + " does not exist.");
    }
    try {
      JsonNode root = new ObjectMapper().readTree(file.toFile());
      if (root == null || !root.isObject()) {
        throw new HeadScopeException(file + " is not a JSON object, so it is not a tokenizer.json.");
      }
      return root;
    } catch (JsonProcessingException e) {
      throw new HeadScopeException(file + " is not valid JSON, so it is not a tokenizer.json.", e);
    } catch (IOException e) {
      throw new HeadScopeException("Cannot read " + file + ": " + e.getMessage() + ".", e);
    }
  }
}
