package io.headscope.app.cli;

import picocli.CommandLine.Option;

/** One input typed on the command line: a sentence, or a pair, for the commands that look at one input. */
final class TextOptions {
  @Option(names = "--text", required = true, paramLabel = "TEXT",
      description = "The sentence (segment a); [MASK] marks words to predict.")
  String text;

  @Option(names = "--pair", paramLabel = "TEXT", description = "A second sentence (segment b).")
  String pair;

  /** Refuses empty sides before any model is loaded. */
  void check() {
    ModelOptions.requireText(text, "--text");
    if (pair != null) {
      ModelOptions.requireText(pair, "--pair");
    }
    Warnings.lowerCaseMask(text);
    Warnings.lowerCaseMask(pair);
  }
}
