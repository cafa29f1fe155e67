package io.headscope.model.store;

import java.nio.file.Path;

/**
 * A model ready to load: the three files of a Hugging Face BERT folder.
 *
 * @param name what the user calls it ({@code bert-base-uncased}, a folder name, ...)
 * @param config {@code config.json}
 * @param weights {@code model.safetensors}, or a sharded checkpoint's {@code model.safetensors.index.json}
 * @param tokenizer {@code tokenizer.json} (generated from {@code vocab.txt} when the folder has none)
 */
public record ModelFiles(String name, Path config, Path weights, Path tokenizer) {

  /**
   * What the model is, whatever its folder is called: the SHA-256 of its weights, its tokenizer and its
   * config (two checkpoints named alike, or one folder retrained between two runs, differ here).
   */
  public Identity identity() {
    return new Identity(weightsHash(), CacheManifest.sha256Of(tokenizer), CacheManifest.sha256Of(config));
  }

  /**
   * The weights' SHA-256; for a sharded checkpoint ({@code weights} is its index), the SHA-256 of the
   * index's hash and every shard's, in the index's order, so that a changed shard changes the identity.
   */
  private String weightsHash() {
    if (!io.headscope.model.checkpoint.ShardedCheckpoint.isIndex(weights)) {
      return CacheManifest.sha256Of(weights);
    }
    StringBuilder all = new StringBuilder(CacheManifest.sha256Of(weights));
    for (String shard : io.headscope.model.checkpoint.ShardedCheckpoint.shardNames(weights)) {
      all.append(' ').append(CacheManifest.sha256Of(weights.resolveSibling(shard)));
    }
    try {
      return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
          .digest(all.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The SHA-256 of a model's three files. */
  public record Identity(String weights, String tokenizer, String config) {}
}
