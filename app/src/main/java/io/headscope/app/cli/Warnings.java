package io.headscope.app.cli;

import io.headscope.model.tokenizer.Encoding;

final class Warnings {
  private Warnings() {}

  /**
   * The tokenizer matches {@code [MASK]} exactly, as Hugging Face's does: {@code [mask]} is read as the
   * pieces "[ mask ]" (the app reads it as meant; the command line stays faithful and says so).
   */
  static void lowerCaseMask(String text) {
    if (text != null && text.toUpperCase(java.util.Locale.ROOT).contains("[MASK]") && !text.contains("[MASK]")) {
      System.err.println("headscope: warning: \"[mask]\" is not the mask token and is read as ordinary text; "
          + "write [MASK] in capitals.");
    }
  }

  static void truncation(Encoding e) {
    if (e.wasTruncated()) {
      // a pair is cut as Google's BERT cuts it: from the end of whichever sentence is longer, so not always B
      System.err.println("headscope: warning: the input was longer than the model's maximum of " + e.length()
          + " positions; " + e.droppedWordpieces() + " wordpieces were dropped" + (e.isPair()
              ? ", one at a time from the end of whichever sentence was longer (BERT's rule), so the first "
                  + "sentence may be cut too." : " from the end."));
    }
  }
}
