package io.headscope.model.tokenizer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A line-by-line Java port of Google's BERT {@code tokenization.py} ({@code FullTokenizer} =
 * {@code BasicTokenizer} + {@code WordpieceTokenizer}), run as Python 3 runs it: strings are
 * sequences of code points, {@code str.lower()} applies the full Unicode mapping including the
 * Greek final sigma, {@code str.split()} splits on Python's whitespace.
 *
 * <p>Google's code has no notion of special tokens: {@code "[MASK]"} typed in a sentence becomes
 * {@code [ mask ]}. Hugging Face's tokenizers first cut the text at the special tokens; {@link
 * #tokenizeKeepingSpecials} does that cut and then runs the unchanged port on every piece.
 */
final class WordPieceReference {
  static final String UNK = "[UNK]";
  static final int MAX_INPUT_CHARS_PER_WORD = 100;

  private final Map<String, Integer> vocab;
  private final boolean doLowerCase;

  WordPieceReference(List<String> vocabLines, boolean doLowerCase) {
    // load_vocab: token = reader.readline().strip(); vocab[token] = index
    this.vocab = new HashMap<>();
    for (int i = 0; i < vocabLines.size(); i++) {
      vocab.put(pythonStrip(vocabLines.get(i)), i);
    }
    this.doLowerCase = doLowerCase;
  }

  static WordPieceReference load(Path vocabTxt, boolean doLowerCase) throws IOException {
    return new WordPieceReference(Files.readAllLines(vocabTxt, StandardCharsets.UTF_8), doLowerCase);
  }

  /** {@code FullTokenizer.tokenize}. */
  List<String> tokenize(String text) {
    List<String> out = new ArrayList<>();
    for (String token : basicTokenize(text)) {
      out.addAll(wordpieceTokenize(token));
    }
    return out;
  }

  /** Cuts out {@code [PAD] [UNK] [CLS] [SEP] [MASK]} verbatim, then {@link #tokenize} each piece. */
  List<String> tokenizeKeepingSpecials(String text) {
    List<String> out = new ArrayList<>();
    int start = 0;
    int i = 0;
    while (i < text.length()) {
      String special = specialAt(text, i);
      if (special == null) {
        i++;
        continue;
      }
      out.addAll(tokenize(text.substring(start, i)));
      out.add(special);
      i += special.length();
      start = i;
    }
    out.addAll(tokenize(text.substring(start)));
    return out;
  }

  private static String specialAt(String text, int i) {
    for (String s : TokenizerJsonWriter.SPECIAL_TOKENS) {
      if (text.startsWith(s, i)) {
        return s;
      }
    }
    return null;
  }

  /** {@code convert_tokens_to_ids}. */
  long[] ids(List<String> tokens) {
    long[] ids = new long[tokens.size()];
    for (int i = 0; i < ids.length; i++) {
      Integer id = vocab.get(tokens.get(i));
      if (id == null) {
        throw new IllegalStateException("not in the vocabulary: " + tokens.get(i));
      }
      ids[i] = id;
    }
    return ids;
  }

  // --- BasicTokenizer ----------------------------------------------------------------------

  List<String> basicTokenize(String text) {
    text = cleanText(text);
    text = tokenizeChineseChars(text);
    List<String> origTokens = whitespaceTokenize(text);
    List<String> splitTokens = new ArrayList<>();
    for (String token : origTokens) {
      if (doLowerCase) {
        token = pythonLower(token);
        token = runStripAccents(token);
      }
      splitTokens.addAll(runSplitOnPunc(token));
    }
    return whitespaceTokenize(String.join(" ", splitTokens));
  }

  private static String runStripAccents(String text) {
    text = Normalizer.normalize(text, Normalizer.Form.NFD);
    StringBuilder out = new StringBuilder();
    text.codePoints()
        .filter(cp -> Character.getType(cp) != Character.NON_SPACING_MARK) // cat == "Mn"
        .forEach(out::appendCodePoint);
    return out.toString();
  }

  private static List<String> runSplitOnPunc(String text) {
    List<StringBuilder> output = new ArrayList<>();
    boolean startNewWord = true;
    for (int cp : text.codePoints().toArray()) {
      if (isPunctuation(cp)) {
        output.add(new StringBuilder().appendCodePoint(cp));
        startNewWord = true;
      } else {
        if (startNewWord) {
          output.add(new StringBuilder());
        }
        startNewWord = false;
        output.get(output.size() - 1).appendCodePoint(cp);
      }
    }
    return output.stream().map(StringBuilder::toString).toList();
  }

  private static String tokenizeChineseChars(String text) {
    StringBuilder out = new StringBuilder();
    text.codePoints()
        .forEach(
            cp -> {
              if (isChineseChar(cp)) {
                out.append(' ').appendCodePoint(cp).append(' ');
              } else {
                out.appendCodePoint(cp);
              }
            });
    return out.toString();
  }

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

  private static String cleanText(String text) {
    StringBuilder out = new StringBuilder();
    text.codePoints()
        .forEach(
            cp -> {
              if (cp == 0 || cp == 0xFFFD || isControl(cp)) {
                return;
              }
              if (isWhitespace(cp)) {
                out.append(' ');
              } else {
                out.appendCodePoint(cp);
              }
            });
    return out.toString();
  }

  // --- WordpieceTokenizer ------------------------------------------------------------------

  List<String> wordpieceTokenize(String text) {
    List<String> outputTokens = new ArrayList<>();
    for (String token : whitespaceTokenize(text)) {
      int[] chars = token.codePoints().toArray();
      if (chars.length > MAX_INPUT_CHARS_PER_WORD) {
        outputTokens.add(UNK);
        continue;
      }
      boolean isBad = false;
      int start = 0;
      List<String> subTokens = new ArrayList<>();
      while (start < chars.length) {
        int end = chars.length;
        String curSubstr = null;
        while (start < end) {
          String substr = new String(chars, start, end - start);
          if (start > 0) {
            substr = "##" + substr;
          }
          if (vocab.containsKey(substr)) {
            curSubstr = substr;
            break;
          }
          end -= 1;
        }
        if (curSubstr == null) {
          isBad = true;
          break;
        }
        subTokens.add(curSubstr);
        start = end;
      }
      if (isBad) {
        outputTokens.add(UNK);
      } else {
        outputTokens.addAll(subTokens);
      }
    }
    return outputTokens;
  }

  // --- character classes -------------------------------------------------------------------

  /** {@code _is_whitespace}: space, tab, newline, carriage return, or category Zs. */
  static boolean isWhitespace(int cp) {
    if (cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r') {
      return true;
    }
    return Character.getType(cp) == Character.SPACE_SEPARATOR;
  }

  /** {@code _is_control}: category C* except tab, newline and carriage return. */
  static boolean isControl(int cp) {
    if (cp == '\t' || cp == '\n' || cp == '\r') {
      return false;
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
      case Character.CONNECTOR_PUNCTUATION, Character.DASH_PUNCTUATION,
          Character.START_PUNCTUATION, Character.END_PUNCTUATION,
          Character.INITIAL_QUOTE_PUNCTUATION, Character.FINAL_QUOTE_PUNCTUATION,
          Character.OTHER_PUNCTUATION -> true;
      default -> false;
    };
  }

  // --- Python 3 string semantics -----------------------------------------------------------

  /** {@code whitespace_tokenize}: {@code text.strip().split()}. */
  static List<String> whitespaceTokenize(String text) {
    List<String> out = new ArrayList<>();
    StringBuilder cur = null;
    for (int cp : text.codePoints().toArray()) {
      if (isPythonSpace(cp)) {
        if (cur != null) {
          out.add(cur.toString());
          cur = null;
        }
      } else {
        if (cur == null) {
          cur = new StringBuilder();
        }
        cur.appendCodePoint(cp);
      }
    }
    if (cur != null) {
      out.add(cur.toString());
    }
    return out;
  }

  private static String pythonStrip(String s) {
    int[] cps = s.codePoints().toArray();
    int a = 0;
    int b = cps.length;
    while (a < b && isPythonSpace(cps[a])) {
      a++;
    }
    while (b > a && isPythonSpace(cps[b - 1])) {
      b--;
    }
    return new String(cps, a, b - a);
  }

  /** {@code str.isspace()}: category Zs, or bidi class WS, B or S. */
  static boolean isPythonSpace(int cp) {
    if ((cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x1F) || cp == 0x85) {
      return true;
    }
    int type = Character.getType(cp);
    return type == Character.SPACE_SEPARATOR
        || type == Character.LINE_SEPARATOR
        || type == Character.PARAGRAPH_SEPARATOR;
  }

  /**
   * {@code str.lower()}: each code point's full lower-case mapping, except that a capital sigma is
   * {@code ς} in the Final_Sigma context ({@code \p{cased} \p{case-ignorable}* Σ !(\p{case-ignorable}*
   * \p{cased})}), as CPython's {@code handle_capital_sigma} decides it.
   */
  static String pythonLower(String text) {
    int[] cps = text.codePoints().toArray();
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < cps.length; i++) {
      if (cps[i] == 0x03A3) {
        out.appendCodePoint(finalSigma(cps, i) ? 0x03C2 : 0x03C3);
      } else {
        out.append(new String(cps, i, 1).toLowerCase(java.util.Locale.ROOT));
      }
    }
    return out.toString();
  }

  private static boolean finalSigma(int[] cps, int i) {
    int j = i - 1;
    while (j >= 0 && isCaseIgnorable(cps[j])) {
      j--;
    }
    if (j < 0 || !isCased(cps[j])) {
      return false;
    }
    j = i + 1;
    while (j < cps.length && isCaseIgnorable(cps[j])) {
      j++;
    }
    return j == cps.length || !isCased(cps[j]);
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
}
