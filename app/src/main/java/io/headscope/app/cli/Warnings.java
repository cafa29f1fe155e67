package io.headscope.app.cli;

import io.headscope.model.tokenizer.Encoding;

final class Warnings {
  private Warnings() {}

  static void truncation(Encoding e) {
    if (e.wasTruncated()) {
      System.err.println("headscope: warning: the input was longer than the model's maximum of " + e.length()
          + " positions; " + e.droppedWordpieces() + " wordpieces were dropped from the end.");
    }
  }
}
