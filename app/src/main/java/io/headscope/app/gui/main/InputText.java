package io.headscope.app.gui.main;

import io.headscope.model.tokenizer.Encoding;
import io.headscope.model.tokenizer.MaskSpelling;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** How the app reads what a person typed, and what it tells them about it. */
final class InputText {
  private static final Pattern MASK = Pattern.compile("\\[mask\\]", Pattern.CASE_INSENSITIVE);
  private static final String UNK = "[UNK]";

  private InputText() {}

  /**
   * {@code [mask]}, {@code [Mask]}… as BERT's mask token {@code [MASK]}: the tokenizer matches special
   * tokens exactly, so an uncased model would otherwise read the three pieces "[ mask ]".
   */
  static String upperCaseMasks(String text) {
    Matcher m = MASK.matcher(text);
    return m.find() ? m.replaceAll(Matcher.quoteReplacement("[MASK]")) : text;
  }

  /**
   * Every mask as the person meant it, as the model's own token {@code own} ({@code [MASK]}, RoBERTa's
   * {@code <mask>}): {@code [mask]} in any case and the other family's spelling ({@link MaskSpelling}).
   * With no mask token ({@code own} null, GPT-2) only the case is mended.
   */
  static String masksAsOwn(String text, String own) {
    return MaskSpelling.asOwn(upperCaseMasks(text), own);
  }

  /**
   * How the mask was read, for the note: {@code "[MASK] read as <mask>"}, {@code "[mask] read as [MASK]"}, or
   * null when every mask in {@code typed} was the model's own spelling. {@code own} null: the model has none.
   */
  static String maskRead(String typed, String own, String modelName) {
    Matcher m = ANY_MASK.matcher(typed);
    while (m.find()) {
      if (own == null) {
        return modelName + " has no mask token: " + m.group() + " is read as text (predictions are the next token)";
      }
      if (!m.group().equals(own)) {
        return m.group() + " read as " + own + ", " + modelName + "'s mask token";
      }
    }
    return null;
  }

  private static final Pattern ANY_MASK = Pattern.compile("\\[mask\\]|<mask>", Pattern.CASE_INSENSITIVE);

  /**
   * One line on how the input was read, or "": wordpieces cut to fit, a mask written otherwise read as the
   * model's ({@link #maskRead}, null for none), pieces the vocabulary lacks (with the characters that are the
   * likely cause).
   */
  static String note(Encoding e, int maxPositions, String maskRead, String text) {
    List<String> parts = new ArrayList<>();
    if (e.wasTruncated()) {
      parts.add("✂ " + e.droppedWordpieces() + " wordpieces cut: the model reads " + maxPositions
          + " positions, so the end of the text is not in the maps");
    }
    if (maskRead != null) {
      parts.add(maskRead);
    }
    long unknown = e.tokens().stream().filter(UNK::equals).count();
    if (unknown > 0) {
      Set<String> odd = unusualCharacters(text);
      parts.add(unknown + " × [UNK]: the vocabulary has no piece for "
          + (odd.isEmpty() ? "some of the text" : String.join(" ", odd)));
    }
    return String.join(" · ", parts);
  }

  /** Emoji, symbols and private-use characters in the text (the usual causes of [UNK]), at most five. */
  static Set<String> unusualCharacters(String text) {
    Set<String> out = new LinkedHashSet<>();
    text.codePoints().forEach(cp -> {
      int type = Character.getType(cp);
      if (out.size() < 5 && (type == Character.OTHER_SYMBOL || type == Character.PRIVATE_USE
          || type == Character.UNASSIGNED || type == Character.SURROGATE)) {
        out.add(new String(Character.toChars(cp)));
      }
    });
    return out;
  }
}
