package io.headscope.app.gui.main;

import io.headscope.model.tokenizer.Encoding;
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
   * One line on how the input was read, or "": wordpieces cut to fit, a lower-case mask read as
   * {@code [MASK]}, pieces the vocabulary lacks (with the characters that are the likely cause).
   */
  static String note(Encoding e, int maxPositions, boolean maskFixed, String text) {
    List<String> parts = new ArrayList<>();
    if (e.wasTruncated()) {
      parts.add("✂ " + e.droppedWordpieces() + " wordpieces cut: the model reads " + maxPositions
          + " positions, so the end of the text is not in the maps");
    }
    if (maskFixed) {
      parts.add("[mask] read as [MASK]");
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
