package io.headscope.model.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.headscope.model.core.BertConfig;
import io.headscope.model.BertModel;
import io.headscope.model.checkpoint.Safetensors;
import io.headscope.model.finetune.ClassifierFolder;
import io.headscope.model.finetune.FineTuning;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.BertTextEncoder;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Fine-tuning a tiny BERT: the toy task is learnt, the folder reloads, AdamW is AdamW, seeds repeat. */
class TrainerTest {
  @TempDir static Path models;
  @TempDir Path dir;
  static ModelFiles tiny;
  static List<TrainingExample> toy;

  /** Animals vs vehicles: the label is whether the sentence names an animal (cat, dog) or not (car, house). */
  private static final String[][] TOY = {
      {"the cat sat on the mat .", "0"}, {"a dog ran in the city .", "0"}, {"the big cat is red .", "0"},
      {"the small dog was good .", "0"}, {"a cat and a dog .", "0"}, {"the dog sat at night .", "0"},
      {"this cat is bad .", "0"}, {"that dog is blue .", "0"},
      {"the car sat on the mat .", "1"}, {"a house in the city .", "1"}, {"the big car is red .", "1"},
      {"the small house was good .", "1"}, {"a car and a house .", "1"}, {"the house at night .", "1"},
      {"this car is bad .", "1"}, {"that house is blue .", "1"}};

  @BeforeAll
  static void write() {
    // TinyBert's weights (standard deviation 0.4 at width 16) saturate the softmaxes and the pooler's tanh;
    // scaled to about 1/sqrt(width), as trained BERTs are, the gradients reach every layer
    TinyBert b = TinyBert.create(2, 4, 5);
    java.util.function.Consumer<float[]> quarter = w -> {
      for (int i = 0; i < w.length; i++) {
        w[i] *= 0.25f;
      }
    };
    b.edit("pooler.dense.weight", quarter);
    for (int l = 0; l < 2; l++) {
      for (String m : List.of("attention.self.query", "attention.self.key", "attention.self.value",
          "attention.output.dense", "intermediate.dense", "output.dense")) {
        b.edit("encoder.layer." + l + "." + m + ".weight", quarter);
      }
    }
    tiny = b.writeTo(models.resolve("tiny"));
    toy = new ArrayList<>();
    try (BertTextEncoder tok = BertTextEncoder.open(tiny.tokenizer(), 64)) {
      for (String[] line : TOY) {
        toy.add(new TrainingExample(tok.encode(line[0]), Integer.parseInt(line[1])));
      }
    }
  }

  private static Trainer trainer(FineTuneOptions o, int inputs) {
    try (Safetensors st = Safetensors.open(tiny.weights())) {
      return Trainer.start(BertConfig.read(tiny.config()), st, List.of("animal", "thing"), o, inputs);
    }
  }

  private static List<Encoding> inputs() {
    return toy.stream().map(TrainingExample::input).toList();
  }

  @Test
  void aSeparableToyTaskIsLearntToFullTrainingAccuracy() {
    // lr 3e-3, not 1e-2: at 1e-2 this training sat on the edge of instability (the loss of seed 7 rose from
    // 0.016 to 0.24 between epochs 30 and 40, seed 9 of 0-24 ended at 15 of 16 right) and libtorch's
    // thread count changes the bits from the first epochs on (1 and 2 threads part by epoch 10), so the
    // outcome hung on the machine's state; once it diverged to NaN. At 3e-3 all 25 seeds reach 16 of 16
    // with 1 thread and with 2 (50 of 50 runs).
    FineTuneOptions o = new FineTuneOptions(40, 3e-3, 4, 0.1, 0.01, 0.1, 7);
    try (Trainer t = trainer(o, toy.size())) {
      EpochReport first = null;
      EpochReport last = null;
      for (int e = 1; e <= o.epochs(); e++) {
        last = t.epoch(e, toy, (ep, s, n, loss) -> { }, () -> false);
        first = first == null ? last : first;
      }
      assertThat(last.meanLoss()).isLessThan(first.meanLoss());
      // accuracy of the trained model itself (no dropout), counted here from its logits
      float[][] logits = t.logits(inputs());
      int right = 0;
      for (int i = 0; i < toy.size(); i++) {
        int predicted = logits[i][1] > logits[i][0] ? 1 : 0;
        right += predicted == toy.get(i).label() ? 1 : 0;
      }
      assertThat(right).isEqualTo(toy.size());
    }
  }

  @Test
  void theWrittenFolderReloadsWithTheSameProbabilitiesAndHuggingFaceNames() throws Exception {
    FineTuneOptions o = new FineTuneOptions(2, 1e-3, 4, 0.1, 0.01, 0.1, 3);
    Path out = dir.resolve("classifier");
    float[][] logits;
    try (Trainer t = trainer(o, toy.size())) {
      t.epoch(1, toy, (ep, s, n, loss) -> { }, () -> false);
      t.epoch(2, toy, (ep, s, n, loss) -> { }, () -> false);
      ClassifierFolder.check(out, false);
      ClassifierFolder.write(t, tiny, out);
      logits = t.logits(inputs());
    }
    JsonNode config = new ObjectMapper().readTree(out.resolve("config.json").toFile());
    assertThat(config.get("architectures").get(0).asText()).isEqualTo("BertForSequenceClassification");
    assertThat(config.get("id2label").get("1").asText()).isEqualTo("thing");
    assertThat(config.get("label2id").get("animal").asInt()).isZero();
    assertThat(out.resolve("vocab.txt")).exists();
    assertThat(out.resolve("tokenizer.json")).exists();
    try (Safetensors st = Safetensors.open(out.resolve("model.safetensors"))) {
      assertThat(st.tensors().keySet()).contains("bert.embeddings.word_embeddings.weight",
          "bert.encoder.layer.1.attention.self.query.weight", "bert.encoder.layer.1.attention.self.value.bias",
          "bert.pooler.dense.weight", "classifier.weight", "classifier.bias");
      assertThat(st.tensors().keySet()).noneMatch(n -> n.contains("qkv") || n.startsWith("cls."));
      assertThat(st.tensors().values()).allMatch(i -> i.dtype().equals("F32"));
    }
    ModelFiles reloaded = new ModelRepository(dir.resolve("cache")).folder(out);
    try (BertModel m = BertModel.load(reloaded)) {
      assertThat(m.hasClassifier()).isTrue();
      assertThat(m.classLabels()).containsExactly("animal", "thing");
      float[][] probs = m.run(RunRequest.of(inputs()).read(Readouts.none().withClassifier())).classProbabilities();
      for (int i = 0; i < toy.size(); i++) {
        double z = Math.exp(logits[i][0]) + Math.exp(logits[i][1]);
        assertThat((double) probs[i][0]).isCloseTo(Math.exp(logits[i][0]) / z, org.assertj.core.data.Offset.offset(1e-6));
        assertThat((double) probs[i][1]).isCloseTo(Math.exp(logits[i][1]) / z, org.assertj.core.data.Offset.offset(1e-6));
      }
    }
  }

  @Test
  void adamWStepsEqualAHandComputationOfScheduleMomentsAndDecoupledDecay() {
    // T = 5 steps (one epoch of 5 batches), warm-up ceil(0.3 * 5) = 2 steps; lr at the step after s
    // finished ones: 0, lr/2 (warm-up), then lr * (5 - s) / 3: lr, 2lr/3, lr/3
    double lr = 1e-3;
    double wd = 0.1; // large, so that the decay is far above the tolerance
    FineTuneOptions o = new FineTuneOptions(1, lr, 4, 0.3, wd, 0, 1);
    List<TrainingExample> batch = toy.subList(0, 4);
    double[] expectedLr = {0, lr / 2, lr, 2 * lr / 3, lr / 3};
    double b1 = 0.9;
    double b2 = 0.999;
    double eps = 1e-8;
    try (Trainer t = trainer(o, 20)) {
      assertThat(t.totalSteps()).isEqualTo(5);
      Map<String, double[]> m = new HashMap<>();
      Map<String, double[]> v = new HashMap<>();
      for (int step = 1; step <= 5; step++) {
        Map<String, float[]> before = t.parameterValues();
        Map<String, float[]> grads = t.gradients(batch); // no dropout: the step sees the same gradient
        t.step(batch);
        Map<String, float[]> after = t.parameterValues();
        double a = expectedLr[step - 1];
        double correction = Math.sqrt(1 - Math.pow(b2, step)) / (1 - Math.pow(b1, step));
        int checked = 0;
        for (String name : before.keySet()) {
          float[] w = before.get(name);
          float[] g = grads.get(name);
          double[] mm = m.computeIfAbsent(name, k -> new double[w.length]);
          double[] vv = v.computeIfAbsent(name, k -> new double[w.length]);
          boolean decayed = !name.endsWith(".bias") && !name.contains("LayerNorm.weight");
          for (int i = 0; i < w.length; i++) {
            double x = w[i] - (decayed ? a * wd * w[i] : 0); // decoupled: not through the gradient
            mm[i] = b1 * mm[i] + (1 - b1) * g[i];
            vv[i] = b2 * vv[i] + (1 - b2) * g[i] * g[i];
            x -= a * correction * mm[i] / (Math.sqrt(vv[i]) + eps);
            double tolerance = 2e-7 + 2e-6 * Math.abs(w[i]);
            if (Math.abs(after.get(name)[i] - x) > tolerance) {
              throw new AssertionError("step " + step + ", " + name + "[" + i + "]: " + after.get(name)[i]
                  + " but by hand " + x + " (was " + w[i] + ", gradient " + g[i] + ")");
            }
            checked++;
          }
        }
        assertThat(checked).isPositive();
        if (step == 1) {
          assertThat(after).allSatisfy((name, w) -> assertThat(w).containsExactly(before.get(name)));
        }
      }
    }
  }

  @Test
  void biasesAndLayerNormGainsAreNotDecayedEverythingElseIs() {
    assertThat(Trainer.isDecayed("bert.encoder.layer.0.attention.output.LayerNorm.weight")).isFalse();
    assertThat(Trainer.isDecayed("bert.embeddings.LayerNorm.bias")).isFalse();
    assertThat(Trainer.isDecayed("classifier.bias")).isFalse();
    assertThat(Trainer.isDecayed("bert.encoder.layer.0.attention.self.qkv.bias")).isFalse();
    assertThat(Trainer.isDecayed("bert.embeddings.word_embeddings.weight")).isTrue();
    assertThat(Trainer.isDecayed("bert.encoder.layer.0.attention.self.qkv.weight")).isTrue();
    assertThat(Trainer.isDecayed("classifier.weight")).isTrue();
  }

  @Test
  void theSameSeedGivesTheSameWeightsAndAnotherSeedOthers() {
    List<float[]> a = trainedWeights(11);
    List<float[]> b = trainedWeights(11);
    List<float[]> c = trainedWeights(12);
    for (int i = 0; i < a.size(); i++) {
      assertThat(b.get(i)).as("tensor %d", i).containsExactly(a.get(i));
    }
    boolean differs = false;
    for (int i = 0; i < a.size(); i++) {
      differs |= !java.util.Arrays.equals(a.get(i), c.get(i));
    }
    assertThat(differs).isTrue();
  }

  private static List<float[]> trainedWeights(long seed) {
    FineTuneOptions o = new FineTuneOptions(2, 1e-3, 4, 0.1, 0.01, 0.1, seed);
    try (Trainer t = trainer(o, toy.size())) {
      t.epoch(1, toy, (ep, s, n, loss) -> { }, () -> false);
      t.epoch(2, toy, (ep, s, n, loss) -> { }, () -> false);
      return t.tensors().stream().map(x -> x.data()).toList();
    }
  }

  @Test
  void nativeMemoryStaysFlatAcrossSteps() {
    FineTuneOptions o = new FineTuneOptions(3, 1e-3, 4, 0.1, 0.01, 0.1, 2);
    try (Trainer t = trainer(o, toy.size())) {
      t.epoch(1, toy, (ep, s, n, loss) -> { }, () -> false);
      long after1 = t.liveNativeArrays();
      t.epoch(2, toy, (ep, s, n, loss) -> { }, () -> false);
      t.logits(inputs());
      assertThat(t.liveNativeArrays()).isEqualTo(after1);
    }
  }

  @Test
  void aCancelledEpochStopsBeforeTheNextStep() {
    FineTuneOptions o = new FineTuneOptions(1, 1e-3, 4, 0.1, 0.01, 0.1, 2);
    int[] steps = {0};
    try (Trainer t = trainer(o, toy.size())) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() ->
          t.epoch(1, toy, (ep, s, n, loss) -> steps[0]++, () -> steps[0] >= 2))
          .isInstanceOf(java.util.concurrent.CancellationException.class);
    }
    assertThat(steps[0]).isEqualTo(2);
  }

  @Test
  void fineTuningWritesTheFolderAfterEachEpochAndKeepsTheLastFinishedOneWhenStopped() throws Exception {
    FineTuneOptions o = new FineTuneOptions(3, 1e-3, 4, 0.1, 0.01, 0.1, 2);
    Path out = dir.resolve("stopped");
    int[] steps = {0};
    List<EpochReport> seen = new ArrayList<>();
    FineTuning.Result r = FineTuning.run(tiny, BertConfig.read(tiny.config()), List.of("animal", "thing"), toy,
        toy.subList(0, 8), o, out, false, new FineTuning.Listener() {
          @Override
          public void step(int epoch, int step, int of, double loss) {
            steps[0]++;
          }

          @Override
          public void epochDone(EpochReport report) {
            seen.add(report);
            assertThat(out.resolve("model.safetensors")).exists();
          }
        }, () -> steps[0] >= 6); // stops in the second epoch (4 steps each)
    assertThat(r.cancelled()).isTrue();
    assertThat(r.epochs()).hasSize(1).isEqualTo(seen);
    assertThat(r.epochs().get(0).hasDev()).isTrue();
    assertThat(out.resolve("config.json")).exists();
    try (var files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly("stopped"); // no temporary left
    }
  }
}
