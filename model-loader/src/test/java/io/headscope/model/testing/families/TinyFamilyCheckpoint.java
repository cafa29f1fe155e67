package io.headscope.model.testing.families;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.headscope.model.testing.RawSafetensors;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A tiny checkpoint folder of one Hugging Face family, with seeded random float32 weights under exactly
 * the names and shapes transformers' {@code modeling_<family>.py} gives them, and the {@code config.json}
 * keys its config class writes. The yardstick the multi-family engine is tested against.
 *
 * <p>By default the folder is what {@code save_pretrained} of the family's masked-LM class writes
 * ({@code BertForMaskedLM}, {@code RobertaForMaskedLM}, {@code XLMRobertaForMaskedLM},
 * {@code DistilBertForMaskedLM}, {@code ElectraForMaskedLM}, {@code AlbertForMaskedLM}) or, for GPT-2,
 * {@code GPT2LMHeadModel}: base weights under the base-model prefix ({@code bert.}, {@code roberta.},
 * {@code distilbert.}, {@code electra.}, {@code albert.}, {@code transformer.}) and the head at the top.
 * Output embeddings are tied to the input word embeddings in every family, and the tied copy is written
 * too (its values are the word embeddings' at write time) unless {@link #omitTiedWeights()}.
 *
 * <p>Variants: {@link #bare()} (the base model alone, no prefix, no head; with the pooler where the
 * base class has one), {@link #gpt2AsOnHub()} (GPT-2 as openai-community/gpt2's own files are). No
 * tokenizer is written: the engine under test is fed token ids.
 *
 * <p>Tensor names used by {@link #edit} and {@link #tensor} are the masked-LM/LM-head names (with the
 * prefix), whatever variant is written.
 */
public final class TinyFamilyCheckpoint {
  /** Every {@code model_type} this class writes. */
  public static final List<String> MODEL_TYPES =
      List.of("bert", "roberta", "xlm-roberta", "distilbert", "electra", "albert", "gpt2");

  /**
   * The dimensions of a tiny model.
   *
   * @param embedding ELECTRA's and ALBERT's {@code embedding_size} (ignored by the other families)
   * @param intermediate {@code intermediate_size}, DistilBERT's {@code hidden_dim}, GPT-2's {@code n_inner}
   *     (0 for GPT-2 writes {@code n_inner: null}, which means 4 x {@code n_embd})
   * @param positions how many tokens fit; RoBERTa and XLM-R get {@code max_position_embeddings =
   *     positions + 2}, because their position ids start after the padding index 1
   */
  public record Shape(int vocab, int hidden, int embedding, int layers, int heads, int intermediate,
      int positions) {
    public Shape {
      if (hidden % heads != 0) {
        throw new IllegalArgumentException("hidden " + hidden + " is not a multiple of heads " + heads);
      }
    }

    public int headSize() {
      return hidden / heads;
    }
  }

  private final String modelType;
  private final Shape shape;
  private final Random random;
  private final Map<String, float[]> values = new LinkedHashMap<>();
  private final Map<String, long[]> shapes = new LinkedHashMap<>();
  /** Tied output embeddings: name of the copy -> name of the word embeddings it repeats. */
  private final Map<String, String> tied = new LinkedHashMap<>();
  private final ObjectNode config;
  private boolean bare;
  private boolean hubGpt2;
  private boolean omitTied;
  private boolean positionIds;

  private TinyFamilyCheckpoint(String modelType, Shape shape, long seed) {
    this.modelType = modelType;
    this.shape = shape;
    this.random = new Random(seed);
    this.config = FamilyConfigs.of(modelType, shape);
    switch (modelType) {
      case "bert" -> bert();
      case "roberta", "xlm-roberta" -> roberta();
      case "distilbert" -> distilbert();
      case "electra" -> electra();
      case "albert" -> albert();
      case "gpt2" -> gpt2();
      default -> throw new IllegalArgumentException("unknown model_type " + modelType + "; one of " + MODEL_TYPES);
    }
  }

  /** A tiny model of {@code modelType} with that family's default tiny shape ({@link #defaultShape}). */
  public static TinyFamilyCheckpoint create(String modelType, long seed) {
    return new TinyFamilyCheckpoint(modelType, defaultShape(modelType), seed);
  }

  public static TinyFamilyCheckpoint create(String modelType, Shape shape, long seed) {
    return new TinyFamilyCheckpoint(modelType, shape, seed);
  }

  /**
   * Each family's default: different widths, depths and head counts per family so that a loader that
   * reads the wrong key fails; ELECTRA and ALBERT with {@code embedding_size != hidden_size}.
   */
  public static Shape defaultShape(String modelType) {
    return switch (modelType) {
      case "bert" -> new Shape(48, 16, 16, 2, 4, 32, 40);
      case "roberta" -> new Shape(50, 12, 12, 2, 3, 24, 40);
      case "xlm-roberta" -> new Shape(60, 16, 16, 3, 2, 36, 32);
      case "distilbert" -> new Shape(44, 16, 16, 3, 4, 40, 48);
      case "electra" -> new Shape(56, 12, 8, 2, 2, 24, 36);
      case "albert" -> new Shape(52, 16, 6, 3, 4, 28, 40);
      case "gpt2" -> new Shape(64, 12, 12, 2, 3, 0, 32);
      default -> throw new IllegalArgumentException("unknown model_type " + modelType + "; one of " + MODEL_TYPES);
    };
  }

  public String modelType() {
    return modelType;
  }

  public Shape shape() {
    return shape;
  }

  /** The config.json that will be written; change it freely before {@link #writeTo}. */
  public ObjectNode config() {
    return config;
  }

  /** The base model alone (BertModel, RobertaModel, ..., GPT2Model): no prefix, no head. */
  public TinyFamilyCheckpoint bare() {
    bare = true;
    return this;
  }

  /**
   * GPT-2 as the hub's openai-community/gpt2 files are: GPT2Model's names (no {@code transformer.}
   * prefix), the causal-mask buffers {@code h.N.attn.bias} (1, 1, P, P; 1 on and below the diagonal) and
   * {@code h.N.attn.masked_bias} (a 0-d -1e4) present, and no {@code lm_head.weight}: the LM head is tied to
   * {@code wte}.
   */
  public TinyFamilyCheckpoint gpt2AsOnHub() {
    if (!modelType.equals("gpt2")) {
      throw new IllegalStateException("gpt2AsOnHub() on " + modelType);
    }
    hubGpt2 = true;
    return this;
  }

  /** Leaves out the tied output-embedding copies, as transformers' safetensors saving does. */
  public TinyFamilyCheckpoint omitTiedWeights() {
    omitTied = true;
    return this;
  }

  /**
   * Adds the int64 {@code embeddings.position_ids} buffer (1, max_position_embeddings) = 0, 1, 2, ... that
   * checkpoints saved before transformers made it non-persistent still carry (BERT-style families only):
   * a loader must skip it, not choke on its dtype.
   */
  public TinyFamilyCheckpoint withPositionIdsBuffer() {
    if (modelType.equals("gpt2")) {
      throw new IllegalStateException("GPT-2 has no position_ids buffer");
    }
    positionIds = true;
    return this;
  }

  /** Changes one tensor's values in place before writing (masked-LM/LM-head name, prefix included). */
  public TinyFamilyCheckpoint edit(String name, Consumer<float[]> change) {
    float[] v = values.get(name);
    if (v == null) {
      throw new IllegalArgumentException("no tensor " + name + " in " + modelType + "; names: " + values.keySet());
    }
    change.accept(v);
    return this;
  }

  /** Sets every value of every tensor (for hand-built models: start from zeros, then {@link #edit}). */
  public TinyFamilyCheckpoint fillAll(float value) {
    for (float[] v : values.values()) {
      Arrays.fill(v, value);
    }
    return this;
  }

  public float[] tensor(String name) {
    float[] v = values.get(name);
    if (v == null) {
      throw new IllegalArgumentException("no tensor " + name);
    }
    return v;
  }

  /** The tensors the folder will hold, name to shape, in writing order (after the variant's renaming). */
  public Map<String, long[]> writtenShapes() {
    Map<String, long[]> out = new LinkedHashMap<>();
    for (Written w : written()) {
      out.put(w.name, w.shape);
    }
    return out;
  }

  /** Writes {@code config.json} and {@code model.safetensors} into {@code dir} (created if needed). */
  public Path writeTo(Path dir) {
    try {
      Files.createDirectories(dir);
      List<RawSafetensors.Entry> entries = new ArrayList<>();
      for (Written w : written()) {
        entries.add(new RawSafetensors.Entry(w.name, "F32", w.shape, littleEndian(w.values)));
      }
      if (positionIds) {
        entries.add(0, positionIdsEntry());
      }
      RawSafetensors.write(dir.resolve("model.safetensors"), entries);
      ObjectNode c = config.deepCopy();
      if (bare) {
        c.putArray("architectures").add(FamilyConfigs.bareArchitecture(modelType));
      }
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(dir.resolve("config.json").toFile(), c);
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private record Written(String name, long[] shape, float[] values) {}

  private List<Written> written() {
    String prefix = FamilyConfigs.basePrefix(modelType);
    boolean baseOnly = bare || hubGpt2;
    List<Written> out = new ArrayList<>();
    for (Map.Entry<String, float[]> e : values.entrySet()) {
      String name = e.getKey();
      boolean base = name.startsWith(prefix);
      boolean pooler = name.startsWith(prefix + "pooler");
      if (baseOnly && !base) {
        continue; // the head
      }
      if (pooler && !bare) {
        continue; // *ForMaskedLM builds its base model with add_pooling_layer=False
      }
      if (tied.containsKey(name) && omitTied) {
        continue;
      }
      float[] v = tied.containsKey(name) ? values.get(tied.get(name)).clone() : e.getValue();
      String outName = baseOnly ? name.substring(prefix.length()) : name;
      out.add(new Written(outName, shapes.get(name), v));
      if (hubGpt2 && name.matches("transformer\\.h\\.\\d+\\.attn\\.c_proj\\.bias")) {
        String layer = outName.substring(0, outName.length() - "c_proj.bias".length());
        out.add(new Written(layer + "bias", new long[] {1, 1, shape.positions(), shape.positions()},
            lowerTriangle(shape.positions())));
        out.add(new Written(layer + "masked_bias", new long[] {}, new float[] {-1e4f}));
      }
    }
    return out;
  }

  // ---- the families, in the order their modeling files create the modules ----

  /** BertForMaskedLM: modeling_bert.py (BertEmbeddings, BertLayer, BertOnlyMLMHead). */
  private void bert() {
    int v = shape.vocab();
    int h = shape.hidden();
    bertEmbeddings("bert.embeddings.", v, h, shape.positions(), 2);
    bertEncoder("bert.encoder.layer.");
    linear("bert.pooler.dense", h, h);
    linear("cls.predictions.transform.dense", h, h);
    layerNorm("cls.predictions.transform.LayerNorm", h);
    bias("cls.predictions.bias", v);
    tie("cls.predictions.decoder.weight", "bert.embeddings.word_embeddings.weight", v, h);
  }

  /** RobertaForMaskedLM / XLMRobertaForMaskedLM: modeling_roberta.py (RobertaLMHead), base prefix roberta. */
  private void roberta() {
    int v = shape.vocab();
    int h = shape.hidden();
    bertEmbeddings("roberta.embeddings.", v, h, shape.positions() + 2, 1);
    bertEncoder("roberta.encoder.layer.");
    linear("roberta.pooler.dense", h, h);
    linear("lm_head.dense", h, h);
    layerNorm("lm_head.layer_norm", h);
    tie("lm_head.decoder.weight", "roberta.embeddings.word_embeddings.weight", v, h);
    bias("lm_head.bias", v);
  }

  /** DistilBertForMaskedLM: modeling_distilbert.py (Embeddings, TransformerBlock, vocab_* head). */
  private void distilbert() {
    int v = shape.vocab();
    int h = shape.hidden();
    embedding("distilbert.embeddings.word_embeddings.weight", v, h);
    embedding("distilbert.embeddings.position_embeddings.weight", shape.positions(), h);
    layerNorm("distilbert.embeddings.LayerNorm", h);
    for (int l = 0; l < shape.layers(); l++) {
      String p = "distilbert.transformer.layer." + l + ".";
      for (String m : List.of("q_lin", "k_lin", "v_lin", "out_lin")) {
        linear(p + "attention." + m, h, h);
      }
      layerNorm(p + "sa_layer_norm", h);
      linear(p + "ffn.lin1", shape.intermediate(), h);
      linear(p + "ffn.lin2", h, shape.intermediate());
      layerNorm(p + "output_layer_norm", h);
    }
    linear("vocab_transform", h, h);
    layerNorm("vocab_layer_norm", h);
    tie("vocab_projector.weight", "distilbert.embeddings.word_embeddings.weight", v, h);
    bias("vocab_projector.bias", v);
  }

  /** ElectraForMaskedLM: modeling_electra.py (embeddings of embedding_size, embeddings_project, generator head). */
  private void electra() {
    int v = shape.vocab();
    int e = shape.embedding();
    bertEmbeddings("electra.embeddings.", v, e, shape.positions(), 2);
    if (e != shape.hidden()) {
      linear("electra.embeddings_project", shape.hidden(), e);
    }
    bertEncoder("electra.encoder.layer.");
    linear("generator_predictions.dense", e, shape.hidden());
    layerNorm("generator_predictions.LayerNorm", e);
    tie("generator_lm_head.weight", "electra.embeddings.word_embeddings.weight", v, e);
    bias("generator_lm_head.bias", v);
  }

  /**
   * AlbertForMaskedLM: modeling_albert.py. One layer group ({@code num_hidden_groups} 1) of one layer
   * ({@code inner_group_num} 1), shared by all {@code num_hidden_layers} layers.
   */
  private void albert() {
    int v = shape.vocab();
    int e = shape.embedding();
    int h = shape.hidden();
    bertEmbeddings("albert.embeddings.", v, e, shape.positions(), 2);
    linear("albert.encoder.embedding_hidden_mapping_in", h, e);
    String p = "albert.encoder.albert_layer_groups.0.albert_layers.0.";
    layerNorm(p + "full_layer_layer_norm", h);
    for (String m : List.of("query", "key", "value", "dense")) {
      linear(p + "attention." + m, h, h);
    }
    layerNorm(p + "attention.LayerNorm", h);
    linear(p + "ffn", shape.intermediate(), h);
    linear(p + "ffn_output", h, shape.intermediate());
    linear("albert.pooler", h, h);
    layerNorm("predictions.LayerNorm", e);
    bias("predictions.bias", v);
    linear("predictions.dense", e, h);
    tie("predictions.decoder.weight", "albert.embeddings.word_embeddings.weight", v, e);
  }

  /** GPT2LMHeadModel: modeling_gpt2.py. Conv1D weights are (in, out). */
  private void gpt2() {
    int h = shape.hidden();
    int inner = shape.intermediate() == 0 ? 4 * h : shape.intermediate();
    embedding("transformer.wte.weight", shape.vocab(), h);
    embedding("transformer.wpe.weight", shape.positions(), h);
    for (int l = 0; l < shape.layers(); l++) {
      String p = "transformer.h." + l + ".";
      layerNorm(p + "ln_1", h);
      conv1d(p + "attn.c_attn", h, 3 * h);
      conv1d(p + "attn.c_proj", h, h);
      layerNorm(p + "ln_2", h);
      conv1d(p + "mlp.c_fc", h, inner);
      conv1d(p + "mlp.c_proj", inner, h);
    }
    layerNorm("transformer.ln_f", h);
    tie("lm_head.weight", "transformer.wte.weight", shape.vocab(), h);
  }

  private void bertEmbeddings(String p, int vocab, int width, int positions, int types) {
    embedding(p + "word_embeddings.weight", vocab, width);
    embedding(p + "position_embeddings.weight", positions, width);
    embedding(p + "token_type_embeddings.weight", types, width);
    layerNorm(p + "LayerNorm", width);
  }

  /** BertLayer's names, shared by RoBERTa, XLM-R and ELECTRA (their layers are "Copied from" BERT's). */
  private void bertEncoder(String prefix) {
    int h = shape.hidden();
    int f = shape.intermediate();
    for (int l = 0; l < shape.layers(); l++) {
      String p = prefix + l + ".";
      for (String m : List.of("query", "key", "value")) {
        linear(p + "attention.self." + m, h, h);
      }
      linear(p + "attention.output.dense", h, h);
      layerNorm(p + "attention.output.LayerNorm", h);
      linear(p + "intermediate.dense", f, h);
      linear(p + "output.dense", h, f);
      layerNorm(p + "output.LayerNorm", h);
    }
  }

  /** nn.Linear(in, out): weight (out, in), bias (out). */
  private void linear(String name, int out, int in) {
    put(name + ".weight", 0.3, out, in);
    put(name + ".bias", 0.1, out);
  }

  /** transformers' Conv1D(nf=out, nx=in): weight (in, out), bias (out). */
  private void conv1d(String name, int in, int out) {
    put(name + ".weight", 0.3, in, out);
    put(name + ".bias", 0.1, out);
  }

  private void embedding(String name, int rows, int width) {
    put(name, 0.4, rows, width);
  }

  /** Gamma near 1 (not exactly 1, so that a loader that drops it is caught) and a small beta. */
  private void layerNorm(String name, int n) {
    put(name + ".weight", 0.1, n);
    float[] g = values.get(name + ".weight");
    for (int i = 0; i < n; i++) {
      g[i] += 1f;
    }
    put(name + ".bias", 0.1, n);
  }

  private void bias(String name, int n) {
    put(name, 0.1, n);
  }

  private void tie(String name, String source, int rows, int width) {
    shapes.put(name, new long[] {rows, width});
    values.put(name, new float[0]); // placeholder: the copy is taken at write time
    tied.put(name, source);
  }

  private void put(String name, double std, long... dims) {
    int n = 1;
    for (long d : dims) {
      n *= (int) d;
    }
    float[] v = new float[n];
    for (int i = 0; i < n; i++) {
      v[i] = (float) (random.nextGaussian() * std);
    }
    values.put(name, v);
    shapes.put(name, dims);
  }

  private RawSafetensors.Entry positionIdsEntry() {
    String prefix = bare ? "" : FamilyConfigs.basePrefix(modelType);
    int n = config.get("max_position_embeddings").asInt();
    ByteBuffer b = ByteBuffer.allocate(n * 8).order(ByteOrder.LITTLE_ENDIAN);
    for (long i = 0; i < n; i++) {
      b.putLong(i);
    }
    return new RawSafetensors.Entry(prefix + "embeddings.position_ids", "I64", new long[] {1, n}, b.array());
  }

  private static float[] lowerTriangle(int n) {
    float[] m = new float[n * n];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j <= i; j++) {
        m[i * n + j] = 1f;
      }
    }
    return m;
  }

  private static byte[] littleEndian(float[] v) {
    ByteBuffer b = ByteBuffer.allocate(v.length * 4).order(ByteOrder.LITTLE_ENDIAN);
    b.asFloatBuffer().put(v);
    return b.array();
  }

  /** For tests: which names are tied copies. */
  Set<String> tiedNames() {
    return tied.keySet();
  }
}
