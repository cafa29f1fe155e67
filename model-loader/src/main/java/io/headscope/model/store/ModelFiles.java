package io.headscope.model.store;

import java.nio.file.Path;

/**
 * A model ready to load: the three files of a Hugging Face BERT folder.
 *
 * @param name what the user calls it ({@code bert-base-uncased}, a folder name, ...)
 * @param config {@code config.json}
 * @param weights {@code model.safetensors}
 * @param tokenizer {@code tokenizer.json} (generated from {@code vocab.txt} when the folder has none)
 */
public record ModelFiles(String name, Path config, Path weights, Path tokenizer) {

  /**
   * What the model is, whatever its folder is called: the SHA-256 of its weights, its tokenizer and its
   * config (two checkpoints named alike, or one folder retrained between two runs, differ here).
   */
  public Identity identity() {
    return new Identity(CacheManifest.sha256Of(weights), CacheManifest.sha256Of(tokenizer),
        CacheManifest.sha256Of(config));
  }

  /** The SHA-256 of a model's three files. */
  public record Identity(String weights, String tokenizer, String config) {}
}
