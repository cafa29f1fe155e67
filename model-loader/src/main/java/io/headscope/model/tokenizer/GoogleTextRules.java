package io.headscope.model.tokenizer;

import java.text.Normalizer;
import java.util.List;

/**
 * Brings a text to the form in which Hugging Face's BERT normalizer and pre-tokenizer split it as
 * Google's {@code tokenization.py} (which produced the models' training data) does.
 *
 * <p>Hugging Face's Rust normalizer differs from Google's Python in a few places, all found by the
 * parity tests:
 *
 * <ul>
 *   <li>its character-category tables are from an old Unicode version (about 9.0): marks, punctuation
 *       and unassigned code points defined since then are not stripped, not split off and not
 *       dropped;
 *   <li>it lower-cases one character at a time, so a word-final {@code Σ} becomes {@code σ} where
 *       Python's {@code str.lower()} gives {@code ς};
 *   <li>its CJK Extension E range starts at U+2B920 instead of U+2B820.
 * </ul>
 *
 * This class applies Google's rules, with Java's Unicode tables, before the text reaches Hugging
 * Face: it drops what Google's cleaning drops (controls, unassigned code points, unpaired
 * surrogates), writes final sigmas, strips accents when lower-casing, and puts spaces around every
 * punctuation mark and CJK ideograph. Hugging Face then finds nothing left to disagree on; for text
 * it already handled like Google, nothing changes. Added tokens ({@code [MASK]}, ...) typed in the
 * text are copied verbatim so that Hugging Face still recognizes them; no new one can appear, since
 * their brackets are punctuation and get spaces around them.
 */
final class GoogleTextRules {
  private GoogleTextRules() {}

  /**
   * The text for Hugging Face's BERT normalizer.
   *
   * @param lowercase whether the tokenizer lower-cases
   * @param stripAccents whether it strips accents (Google: exactly when lower-casing)
   * @param addedTokens tokens Hugging Face matches in the raw text before normalizing
   */
  static String forHuggingFace(
      String text, boolean lowercase, boolean stripAccents, List<String> addedTokens) {
    StringBuilder out = new StringBuilder(text.length() + 16);
    int start = 0;
    int i = 0;
    while (i < text.length()) {
      String added = longestAt(text, i, addedTokens);
      if (added == null) {
        i++;
        continue;
      }
      appendPlain(out, text.substring(start, i), lowercase, stripAccents);
      out.append(added);
      i += added.length();
      start = i;
    }
    appendPlain(out, text.substring(start), lowercase, stripAccents);
    return out.toString();
  }

  /** Only what cannot cross into Rust: unpaired surrogates, which any normalizer drops anyway. */
  static String withoutUnpairedSurrogates(String text) {
    StringBuilder out = new StringBuilder(text.length());
    text.codePoints().filter(cp -> !isSurrogate(cp)).forEach(out::appendCodePoint);
    return out.toString();
  }

  private static String longestAt(String text, int i, List<String> tokens) {
    String best = null;
    for (String t : tokens) {
      if (!t.isEmpty() && text.startsWith(t, i) && (best == null || t.length() > best.length())) {
        best = t;
      }
    }
    return best;
  }

  private static void appendPlain(
      StringBuilder out, String text, boolean lowercase, boolean stripAccents) {
    if (text.isEmpty()) {
      return;
    }
    if (lowercase) {
      text = finalSigmas(text);
    }
    if (stripAccents) {
      text = stripAccents(text);
    }
    text.codePoints().forEach(cp -> {
      if (droppedByCleaning(cp)) {
        return;
      }
      if (isPunctuation(cp) || isChineseChar(cp)) {
        out.append(' ').appendCodePoint(cp).append(' ');
      } else {
        out.appendCodePoint(cp);
      }
    });
  }

  /** {@code Σ} written as {@code ς} wherever Python's {@code str.lower()} would. */
  static String finalSigmas(String text) {
    if (text.indexOf('\u03A3') < 0) {
      return text;
    }
    StringBuilder out = new StringBuilder(text);
    for (int i = text.indexOf('\u03A3'); i >= 0; i = text.indexOf('\u03A3', i + 1)) {
      if (isFinalSigma(text, i)) {
        out.setCharAt(i, '\u03C2');
      }
    }
    return out.toString();
  }

  /**
   * CPython's Final_Sigma test: a cased character before the {@code Σ} and none after it, skipping
   * case-ignorable ones. Google lower-cases each word after dropping control characters; a word ends
   * at whitespace, which is neither cased nor case-ignorable, so the whole text can be scanned with
   * the dropped characters skipped.
   */
  static boolean isFinalSigma(String text, int i) {
    int j = i;
    int before = -1;
    while (j > 0) {
      int cp = text.codePointBefore(j);
      j -= Character.charCount(cp);
      if (!droppedByCleaning(cp) && !isCaseIgnorable(cp)) {
        before = cp;
        break;
      }
    }
    if (before < 0 || !isCased(before)) {
      return false;
    }
    j = i + 1;
    while (j < text.length()) {
      int cp = text.codePointAt(j);
      j += Character.charCount(cp);
      if (!droppedByCleaning(cp) && !isCaseIgnorable(cp)) {
        return !isCased(cp);
      }
    }
    return true;
  }

  /** {@code _run_strip_accents}: NFD, then every non-spacing mark (Mn) removed. */
  static String stripAccents(String text) {
    String nfd = Normalizer.normalize(text, Normalizer.Form.NFD);
    StringBuilder out = new StringBuilder(nfd.length());
    nfd.codePoints()
        .filter(cp -> Character.getType(cp) != Character.NON_SPACING_MARK)
        .forEach(out::appendCodePoint);
    return out.toString();
  }

  /** {@code _clean_text} drops NUL, U+FFFD and category C* except tab, newline and return. */
  static boolean droppedByCleaning(int cp) {
    if (cp == '\t' || cp == '\n' || cp == '\r') {
      return false;
    }
    if (cp == 0 || cp == 0xFFFD) {
      return true;
    }
    return switch (Character.getType(cp)) {
      case Character.CONTROL, Character.FORMAT, Character.SURROGATE, Character.PRIVATE_USE,
          Character.UNASSIGNED -> true;
      default -> false;
    };
  }

  /** {@code _is_punctuation}: every ASCII non-letter non-digit symbol, or category P*. */
  static boolean isPunctuation(int cp) {
    if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96)
        || (cp >= 123 && cp <= 126)) {
      return true;
    }
    return switch (Character.getType(cp)) {
      case Character.CONNECTOR_PUNCTUATION, Character.DASH_PUNCTUATION, Character.START_PUNCTUATION,
          Character.END_PUNCTUATION, Character.INITIAL_QUOTE_PUNCTUATION,
          Character.FINAL_QUOTE_PUNCTUATION, Character.OTHER_PUNCTUATION -> true;
      default -> false;
    };
  }

  /** {@code _is_chinese_char}: the CJK Unified Ideographs blocks, as Google lists them. */
  static boolean isChineseChar(int cp) {
    return (cp >= 0x4E00 && cp <= 0x9FFF)
        || (cp >= 0x3400 && cp <= 0x4DBF)
        || (cp >= 0x20000 && cp <= 0x2A6DF)
        || (cp >= 0x2A700 && cp <= 0x2B73F)
        || (cp >= 0x2B740 && cp <= 0x2B81F)
        || (cp >= 0x2B820 && cp <= 0x2CEAF)
        || (cp >= 0xF900 && cp <= 0xFAFF)
        || (cp >= 0x2F800 && cp <= 0x2FA1F);
  }

  static boolean isCased(int cp) {
    return Character.isLowerCase(cp) || Character.isUpperCase(cp) || Character.isTitleCase(cp);
  }

  /** Case_Ignorable: Mn, Me, Cf, Lm, Sk, or Word_Break MidLetter, MidNumLet or Single_Quote. */
  static boolean isCaseIgnorable(int cp) {
    switch (Character.getType(cp)) {
      case Character.NON_SPACING_MARK, Character.ENCLOSING_MARK, Character.FORMAT,
          Character.MODIFIER_LETTER, Character.MODIFIER_SYMBOL -> {
        return true;
      }
      default -> {
        return switch (cp) {
          case '\'', '.', ':', 0x00B7, 0x0387, 0x055F, 0x05F4, 0x2018, 0x2019, 0x2024, 0x2027,
              0xFE13, 0xFE52, 0xFE55, 0xFF07, 0xFF0E, 0xFF1A -> true;
          default -> false;
        };
      }
    }
  }

  private static boolean isSurrogate(int cp) {
    return cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE;
  }
}
