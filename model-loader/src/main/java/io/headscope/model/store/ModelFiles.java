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
public record ModelFiles(String name, Path config, Path weights, Path tokenizer) {}
