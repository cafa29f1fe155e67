package io.headscope.model.testing.families;

import io.headscope.model.store.ModelFiles;
import io.headscope.model.tokenizer.HandTokenizers;
import io.headscope.model.tokenizer.TextEncoder;
import io.headscope.model.tokenizer.TextEncoders;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A complete model folder of a family, as a user would have it: a tiny random checkpoint in the
 * family's Hugging Face layout ({@link TinyFamilyCheckpoint}) and a hand-made tokenizer of the family's
 * kind ({@link HandTokenizers}: byte-level BPE for RoBERTa and GPT-2, Unigram for ALBERT and XLM-R,
 * WordPiece for the rest), the vocabulary sized to the tokenizer's.
 */
public final class FamilyModelFolders {
  private FamilyModelFolders() {}

  public static ModelFiles write(String modelType, Path dir, long seed) {
    try {
      Files.createDirectories(dir);
      Path scratch = Files.createTempDirectory(dir.getParent(), ".tok");
      Path tokenizer = switch (modelType) {
        case "roberta" -> HandTokenizers.roberta(scratch);
        case "gpt2" -> HandTokenizers.gpt2(scratch);
        case "albert" -> HandTokenizers.albert(scratch);
        case "xlm-roberta" -> HandTokenizers.xlmRoberta(scratch);
        default -> HandTokenizers.wordPiece(scratch);
      };
      int vocab;
      try (TextEncoder t = TextEncoders.open(tokenizer, 32)) {
        vocab = t.vocabSize();
      }
      TinyFamilyCheckpoint.Shape d = TinyFamilyCheckpoint.defaultShape(modelType);
      TinyFamilyCheckpoint.Shape shape = new TinyFamilyCheckpoint.Shape(vocab, d.hidden(), d.embedding(), d.layers(),
          d.heads(), d.intermediate(), d.positions());
      TinyFamilyCheckpoint.create(modelType, shape, seed).writeTo(dir);
      Files.copy(tokenizer, dir.resolve("tokenizer.json"));
      return new ModelFiles(modelType + "-tiny", dir.resolve("config.json"), dir.resolve("model.safetensors"),
          dir.resolve("tokenizer.json"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
