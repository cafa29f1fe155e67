package io.headscope.model.tokenizer;

import com.fasterxml.jackson.databind.JsonNode;
import io.headscope.model.core.HeadScopeException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

/**
 * Opens the right {@link TextEncoder} for a model folder or a {@code tokenizer.json}.
 *
 * <p>A folder's tokenizer is its {@code tokenizer.json}; failing that, the older file pair {@code
 * vocab.json} + {@code merges.txt} (GPT-2, RoBERTa) or a BERT {@code vocab.txt}, turned into a
 * {@code tokenizer.json} written beside them. A WordPiece tokenizer with BERT's text rules (BERT,
 * DistilBERT, ELECTRA) is read by {@link BertTextEncoder}, which also evens out where Hugging Face's
 * normalizer differs from Google's; every other one by {@link HfTextEncoder}.
 */
public final class TextEncoders {
  /** The {@code model_type}s of {@code config.json} whose tokenizers HeadScope reads. */
  public static final Set<String> MODEL_TYPES =
      Set.of("bert", "roberta", "xlm-roberta", "distilbert", "electra", "albert", "gpt2", "llama", "qwen2", "mistral", "gemma", "gpt_neox",
          "modernbert", "t5", "mt5", "bart");

  private static final Set<String> TOKENIZER_MODELS = Set.of("WordPiece", "BPE", "Unigram");

  private TextEncoders() {}

  /**
   * The encoder of {@code folderOrFile}: a model folder, or a {@code tokenizer.json} itself.
   *
   * @param maxLength the most tokens an encoding may have (the model's {@code max_position_embeddings}
   *     or {@code n_positions})
   * @throws HeadScopeException in one line naming the file, if the tokenizer is missing or corrupt or
   *     the model is of a kind HeadScope does not read
   */
  public static TextEncoder open(Path folderOrFile, int maxLength) {
    if (Files.isDirectory(folderOrFile)) {
      checkModelType(folderOrFile.resolve("config.json"));
      return openJson(tokenizerJsonOf(folderOrFile), maxLength);
    }
    return openJson(folderOrFile, maxLength);
  }

  /**
   * The folder's {@code tokenizer.json}, written first from {@code vocab.json} + {@code merges.txt} or
   * from {@code vocab.txt} when it has none.
   */
  public static Path tokenizerJsonOf(Path folder) {
    Path json = folder.resolve("tokenizer.json");
    if (Files.exists(json)) {
      return json;
    }
    Path vocabJson = folder.resolve("vocab.json");
    Path merges = folder.resolve("merges.txt");
    Path vocabTxt = folder.resolve("vocab.txt");
    try {
      if (Files.isRegularFile(vocabJson) && Files.isRegularFile(merges)) {
        BpeTokenizerJson.write(vocabJson, merges, json);
      } else if (Files.isRegularFile(vocabJson)) {
        throw new HeadScopeException(folder + " has vocab.json but no merges.txt beside it, so its tokenizer is incomplete.");
      } else if (Files.isRegularFile(vocabTxt)) {
        TokenizerJsonWriter.write(vocabTxt, lowercases(folder.resolve("tokenizer_config.json")), json);
      } else {
        throw new HeadScopeException(
            folder + " has no tokenizer: no tokenizer.json, vocab.json + merges.txt or vocab.txt.");
      }
    } catch (IOException e) {
      throw new HeadScopeException("Cannot write " + json + ": " + e.getMessage() + ".", e);
    }
    return json;
  }

  private static TextEncoder openJson(Path tokenizerJson, int maxLength) {
    TokenizerFacts facts = TokenizerFacts.read(tokenizerJson);
    if (!TOKENIZER_MODELS.contains(facts.modelType)) {
      throw new HeadScopeException(tokenizerJson + " uses a tokenizer model of type \"" + facts.modelType
          + "\"; HeadScope reads WordPiece, BPE and Unigram tokenizers.");
    }
    if (facts.modelType.equals("WordPiece") && facts.bertTextRules()) {
      return BertTextEncoder.open(tokenizerJson, facts.root, maxLength);
    }
    return HfTextEncoder.open(facts, maxLength);
  }

  /** Refuses a {@code config.json} of a model kind HeadScope does not read; no config is no refusal. */
  private static void checkModelType(Path config) {
    if (!Files.isRegularFile(config)) {
      return;
    }
    JsonNode type = TokenizerFacts.readJson(config).get("model_type");
    if (type != null && !MODEL_TYPES.contains(type.asText())) {
      throw new HeadScopeException(config + " is a \"" + type.asText() + "\" model; HeadScope reads "
          + String.join(", ", MODEL_TYPES.stream().sorted().toList()) + ".");
    }
  }

  /** {@code do_lower_case} of {@code tokenizer_config.json}; true without one, as BertTokenizer's default. */
  private static boolean lowercases(Path tokenizerConfig) {
    if (!Files.isRegularFile(tokenizerConfig)) {
      return true;
    }
    return TokenizerFacts.readJson(tokenizerConfig).path("do_lower_case").asBoolean(true);
  }
}
