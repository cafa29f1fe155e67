package io.headscope.model.tokenizer;

import java.util.List;

/**
 * The mask token as a person writes it, read as the model's own: {@code [MASK]} typed for a RoBERTa (whose
 * mask is {@code <mask>}) would otherwise be seven byte-level pieces {@code [ M A S K ]}, and {@code <mask>}
 * typed for a BERT three wordpieces. Papers, BertViz notebooks and Hugging Face's fill-mask examples use
 * both spellings; which one a model expects is a detail of its tokenizer, not of the question asked.
 *
 * <p>Only the exact spellings are rewritten (as Hugging Face matches special tokens exactly); a model
 * without a mask token (GPT-2) reads the text as written.
 */
public final class MaskSpelling {
  /** The mask spellings of the families HeadScope runs (WordPiece and SentencePiece/BPE). */
  public static final List<String> SPELLINGS = List.of("[MASK]", "<mask>");

  private MaskSpelling() {}

  /** The model's own mask token as text ({@code [MASK]}, {@code <mask>}), or null when it has none. */
  public static String own(TextEncoder tokenizer) {
    long id = tokenizer.maskId();
    return id == TextEncoder.NO_TOKEN ? null : tokenizer.vocabToken(id).strip();
  }

  /**
   * {@code text} with every other family's mask spelling replaced by {@code own}; unchanged when {@code own}
   * is null (no mask token) or the text has no other spelling.
   */
  public static String asOwn(String text, String own) {
    if (text == null || own == null) {
      return text;
    }
    String out = text;
    for (String s : SPELLINGS) {
      if (!s.equals(own)) {
        out = out.replace(s, own);
      }
    }
    return out;
  }

  /** Whether {@code text} spells a mask another way than {@code own} (the app says it read it as the model's). */
  public static boolean spelledOtherwise(String text, String own) {
    return own != null && text != null && !asOwn(text, own).equals(text);
  }
}
