package io.headscope.model.testing;

import io.headscope.model.core.BertConfig;
import io.headscope.model.checkpoint.FloatTensor;
import io.headscope.model.checkpoint.Safetensors;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.tokenizer.TokenizerJsonWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;

/**
 * Small BERT checkpoints with seeded random weights, written by the tests themselves as real
 * Hugging Face folders (config.json, model.safetensors, vocab.txt, tokenizer.json).
 *
 * <p>Weights can be edited before writing ({@link #edit}) to build hand-checkable models.
 */
public final class TinyBert {
  /** A small English vocabulary: the specials, some words, letters and digits as fallbacks. */
  public static final List<String> VOCAB = buildVocab();

  private final BertConfig config;
  private final Map<String, FloatTensor> tensors = new LinkedHashMap<>();
  private String prefix = "bert.";
  private boolean mlmHead = true;
  private int classifierLabels = 0;

  private TinyBert(BertConfig config, long seed) {
    this.config = config;
    Random r = new Random(seed);
    int d = config.hiddenSize();
    int f = config.intermediateSize();
    put("embeddings.word_embeddings.weight", r, 0.5f, config.vocabSize(), d);
    put("embeddings.position_embeddings.weight", r, 0.5f, config.maxPositionEmbeddings(), d);
    put("embeddings.token_type_embeddings.weight", r, 0.5f, config.typeVocabSize(), d);
    ones("embeddings.LayerNorm.weight", d);
    put("embeddings.LayerNorm.bias", r, 0.1f, d);
    for (int l = 0; l < config.numHiddenLayers(); l++) {
      String p = "encoder.layer." + l + ".";
      for (String m : List.of("attention.self.query", "attention.self.key", "attention.self.value",
          "attention.output.dense")) {
        put(p + m + ".weight", r, 0.4f, d, d);
        put(p + m + ".bias", r, 0.1f, d);
      }
      ones(p + "attention.output.LayerNorm.weight", d);
      put(p + "attention.output.LayerNorm.bias", r, 0.1f, d);
      put(p + "intermediate.dense.weight", r, 0.4f, f, d);
      put(p + "intermediate.dense.bias", r, 0.1f, f);
      put(p + "output.dense.weight", r, 0.4f, d, f);
      put(p + "output.dense.bias", r, 0.1f, d);
      ones(p + "output.LayerNorm.weight", d);
      put(p + "output.LayerNorm.bias", r, 0.1f, d);
    }
    put("pooler.dense.weight", r, 0.4f, d, d);
    put("pooler.dense.bias", r, 0.1f, d);
    put("cls.predictions.transform.dense.weight", r, 0.4f, d, d);
    put("cls.predictions.transform.dense.bias", r, 0.1f, d);
    ones("cls.predictions.transform.LayerNorm.weight", d);
    put("cls.predictions.transform.LayerNorm.bias", r, 0.1f, d);
    put("cls.predictions.bias", r, 0.1f, config.vocabSize());
    classifierSeed = r.nextLong();
  }

  private long classifierSeed;

  /** {@code layers} x {@code heads}, head size 4, erf GELU, 64 positions. */
  public static TinyBert create(int layers, int heads, long seed) {
    int d = heads * 4;
    return new TinyBert(
        new BertConfig(VOCAB.size(), d, layers, heads, 2 * d, "gelu", 64, 2, 1e-12, List.of()), seed);
  }

  public static TinyBert create(BertConfig config, long seed) {
    return new TinyBert(config, seed);
  }

  public BertConfig config() {
    return config;
  }

  /** Tensors are written without the {@code bert.} prefix (as a bare BertModel saves them). */
  public TinyBert withoutPrefix() {
    prefix = "";
    return this;
  }

  /** No masked-LM head: a bare BertModel. */
  public TinyBert withoutMlmHead() {
    mlmHead = false;
    return this;
  }

  /** Adds a sequence-classification head over the pooler with these labels. */
  public TinyBert withClassifier(String... labels) {
    classifierLabels = labels.length;
    Random r = new Random(classifierSeed);
    put("classifier.weight", r, 0.4f, labels.length, config.hiddenSize());
    put("classifier.bias", r, 0.1f, labels.length);
    cfgLabels = List.of(labels);
    return this;
  }

  private List<String> cfgLabels = List.of();

  /** Changes one tensor's values in place before writing (name without the {@code bert.} prefix). */
  public TinyBert edit(String name, Consumer<float[]> change) {
    FloatTensor t = tensors.get(name);
    if (t == null) {
      throw new IllegalArgumentException("no tensor " + name);
    }
    change.accept(t.data());
    return this;
  }

  public float[] tensor(String name) {
    return tensors.get(name).data();
  }

  /** Writes the folder and returns its files. */
  public ModelFiles writeTo(Path dir) {
    try {
      Files.createDirectories(dir);
      List<FloatTensor> out = new ArrayList<>();
      for (FloatTensor t : tensors.values()) {
        boolean head = t.name().startsWith("cls.") || t.name().startsWith("classifier.");
        if (!mlmHead && t.name().startsWith("cls.")) {
          continue;
        }
        out.add(t.renamed(head ? t.name() : prefix + t.name()));
      }
      Safetensors.write(dir.resolve("model.safetensors"), out, Map.of("format", "pt"));
      BertConfig c = new BertConfig(config.vocabSize(), config.hiddenSize(), config.numHiddenLayers(),
          config.numAttentionHeads(), config.intermediateSize(), config.hiddenAct(),
          config.maxPositionEmbeddings(), config.typeVocabSize(), config.layerNormEps(), cfgLabels);
      c.write(dir.resolve("config.json"));
      Path vocab = dir.resolve("vocab.txt");
      Files.write(vocab, VOCAB);
      TokenizerJsonWriter.write(vocab, true, dir.resolve("tokenizer.json"));
      return new ModelFiles(dir.getFileName().toString(), dir.resolve("config.json"),
          dir.resolve("model.safetensors"), dir.resolve("tokenizer.json"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void put(String name, Random r, float scale, long... shape) {
    long n = 1;
    for (long s : shape) {
      n *= s;
    }
    float[] data = new float[(int) n];
    for (int i = 0; i < data.length; i++) {
      data[i] = (float) (r.nextGaussian() * scale);
    }
    tensors.put(name, new FloatTensor(name, shape, data));
  }

  private void ones(String name, int n) {
    float[] data = new float[n];
    java.util.Arrays.fill(data, 1f);
    tensors.put(name, new FloatTensor(name, new long[] {n}, data));
  }

  private static List<String> buildVocab() {
    List<String> v = new ArrayList<>(List.of("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"));
    for (String w : ("the a an is was are of to and in on at it he she they we you i this that "
        + "cat dog sat mat man woman king queen paris france capital city house car red blue big "
        + "small good bad day night run ran walk model hello world fashion role new super fine . , ! ? ' \"")
        .split(" ")) {
      v.add(w);
    }
    for (char c = 'a'; c <= 'z'; c++) {
      v.add(String.valueOf(c));
      v.add("##" + c);
    }
    for (char c = '0'; c <= '9'; c++) {
      v.add(String.valueOf(c));
    }
    v.add("##s");
    v.add("##ing");
    v.add("##ed");
    return List.copyOf(new java.util.LinkedHashSet<>(v));
  }
}
