package io.headscope.model.engine;

import io.headscope.model.tokenizer.Encoding;

/** One tokenized training or evaluation input and its gold label (an index into the labels). */
public record TrainingExample(Encoding input, int label) {}
