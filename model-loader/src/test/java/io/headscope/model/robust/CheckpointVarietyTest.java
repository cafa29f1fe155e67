package io.headscope.model.robust;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.AttentionTrace;
import io.headscope.model.core.BertConfig;
import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.core.HeadMask;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The kinds of BERT checkpoint people bring: prefixes, heads, sizes, vocabularies, scripts. */
class CheckpointVarietyTest {
  @TempDir Path tmp;

  @Test
  void namesWithAndWithoutTheBertPrefixGiveTheSameModel() {
    ModelFiles prefixed = TinyBert.create(2, 4, 5).writeTo(tmp.resolve("prefixed"));
    ModelFiles bare = TinyBert.create(2, 4, 5).withoutPrefix().writeTo(tmp.resolve("bare"));
    try (BertModel a = BertModel.load(prefixed); BertModel b = BertModel.load(bare)) {
      AttentionTrace ta = a.trace(a.encode("the [MASK] sat on the mat", null));
      AttentionTrace tb = b.trace(b.encode("the [MASK] sat on the mat", null));
      assertThat(tb.attention()).isDeepEqualTo(ta.attention());
      assertThat(tb.predictions().get(0).probabilities()).containsExactly(ta.predictions().get(0).probabilities());
    }
  }

  @Test
  void maskedLmCheckpointPredicts() {
    try (BertModel m = BertModel.load(TinyBert.create(2, 4, 6).writeTo(tmp.resolve("mlm")))) {
      assertThat(m.hasMaskedLmHead()).isTrue();
      assertThat(m.hasClassifier()).isFalse();
      AttentionTrace t = m.trace(m.encode("the [MASK] sat", null));
      assertThat(t.predictions()).hasSize(1);
      assertThat(t.classProbabilities()).isNull();
    }
  }

  @Test
  void sequenceClassifierGivesLabelledProbabilities() {
    ModelFiles files = TinyBert.create(2, 4, 7).withoutMlmHead().withClassifier("negative", "neutral", "positive")
        .writeTo(tmp.resolve("classifier"));
    try (BertModel m = BertModel.load(files)) {
      assertThat(m.hasClassifier()).isTrue();
      assertThat(m.hasMaskedLmHead()).isFalse();
      assertThat(m.classLabels()).containsExactly("negative", "neutral", "positive");
      AttentionTrace t = m.trace(m.encode("a good day", "a bad night"));
      double sum = 0;
      for (float p : t.classProbabilities()) {
        sum += p;
      }
      assertThat(t.classProbabilities()).hasSize(3);
      assertThat(sum).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-5));
    }
  }

  @Test
  void bareBertModelHasMapsButSaysItCannotPredict() {
    ModelFiles files = TinyBert.create(2, 4, 8).withoutMlmHead().withoutPrefix().writeTo(tmp.resolve("bare"));
    try (BertModel m = BertModel.load(files)) {
      assertThat(m.hasMaskedLmHead()).isFalse();
      AttentionTrace t = m.trace(m.encode("the [MASK] sat", null));
      assertThat(t.predictions()).isEmpty();
      Maps.assertRowsAreDistributions(t, 1e-5);
      assertThatThrownBy(() -> m.run(io.headscope.model.engine.RunRequest.of(m.encode("the [MASK] sat", null))
          .read(io.headscope.model.engine.Readouts.none().withLogProbs(new int[] {2}))))
          .isInstanceOf(HeadScopeException.class).hasMessageContaining("no masked-LM head");
    }
  }

  @Test
  void twoLayersFourHeads() {
    try (BertModel m = BertModel.load(TinyBert.create(2, 4, 9).writeTo(tmp.resolve("2x4")))) {
      AttentionTrace t = m.trace(m.encode("the cat sat on the mat", null));
      assertThat(t.attention()).hasDimensions(2, 4);
      assertThat(t.valueNorms()).hasDimensions(2, 4);
      Maps.assertRowsAreDistributions(t, 1e-5);
    }
  }

  @Test
  void twentyFourLayersSixteenHeadsLikeBertLarge() {
    // BERT-large's shape of layers and heads, with head size 4 instead of 64 to stay fast.
    try (BertModel m = BertModel.load(TinyBert.create(24, 16, 10).writeTo(tmp.resolve("24x16")))) {
      assertThat(m.config().numHiddenLayers()).isEqualTo(24);
      assertThat(m.config().headSize()).isEqualTo(4);
      AttentionTrace t = m.trace(TraceRequest.of(m.encode("the king and the queen", "paris is a city"))
          .mask(HeadMask.of(java.util.Set.of(new io.headscope.model.core.Head(23, 15)), HeadMask.Mode.ZERO))
          .top(3)).get(0);
      assertThat(t.attention()).hasDimensions(24, 16);
      Maps.assertRowsAreDistributions(t, 1e-5);
    }
  }

  @Test
  void casedAndUncasedVocabulariesSplitDifferently() throws IOException {
    List<String> vocab = new ArrayList<>(List.of("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
        "Paris", "paris", "The", "the", "cafe", "café", "##s"));
    Path cased = tinyWithVocab("cased", vocab, false);
    Path uncased = tinyWithVocab("uncased", vocab, true);
    try (BertModel c = BertModel.load(new ModelRepository(tmp.resolve("cache")).folder(cased));
        BertModel u = BertModel.load(new ModelRepository(tmp.resolve("cache")).folder(uncased))) {
      assertThat(c.encode("The Paris café", null).tokens()).containsExactly("[CLS]", "The", "Paris", "café", "[SEP]");
      assertThat(u.encode("The Paris café", null).tokens()).containsExactly("[CLS]", "the", "paris", "cafe", "[SEP]");
      Maps.assertRowsAreDistributions(c.trace(c.encode("The Paris café", null)), 1e-5);
    }
  }

  @Test
  void chineseIsSplitPerCharacter() throws IOException {
    List<String> vocab = new ArrayList<>(List.of("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
        "中", "国", "人", "我", "the", "##s"));
    Path dir = tinyWithVocab("chinese", vocab, false);
    try (BertModel m = BertModel.load(new ModelRepository(tmp.resolve("cache")).folder(dir))) {
      // 爱 is not in the vocabulary: one [UNK] for that character alone, not for the whole run of text
      assertThat(m.encode("我爱中国人", null).tokens())
          .containsExactly("[CLS]", "我", "[UNK]", "中", "国", "人", "[SEP]");
      assertThat(m.encode("the中国", null).tokens()).containsExactly("[CLS]", "the", "中", "国", "[SEP]");
      Maps.assertRowsAreDistributions(m.trace(m.encode("我爱中国人", null)), 1e-5);
    }
  }

  /** A TinyBert folder whose vocabulary (no larger than the model's) is replaced by {@code vocab}. */
  private Path tinyWithVocab(String name, List<String> vocab, boolean lowercase) throws IOException {
    Path dir = tmp.resolve(name);
    TinyBert.create(new BertConfig(TinyBert.VOCAB.size(), 16, 2, 4, 32, "gelu", 64, 2, 1e-12, List.of()), 3)
        .writeTo(dir);
    Files.delete(dir.resolve("tokenizer.json"));
    Files.write(dir.resolve("vocab.txt"), vocab);
    Files.writeString(dir.resolve("tokenizer_config.json"), "{\"do_lower_case\": " + lowercase + "}");
    return dir;
  }
}
