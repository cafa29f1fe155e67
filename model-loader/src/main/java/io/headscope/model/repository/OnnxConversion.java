package io.headscope.model.repository;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.headscope.model.checkpoint.OnnxGraph;
import io.headscope.model.checkpoint.OnnxToHuggingFace;
import io.headscope.model.checkpoint.Safetensors;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.store.AtomicOutput;
import io.headscope.model.store.CacheManifest;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.store.ProgressListener;
import io.headscope.model.store.SafeFiles;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Turns a BERT exported to ONNX, with its {@code tokenizer.json}, into a Hugging Face folder the engine
 * reads: {@code config.json} (read off the graph, {@link OnnxToHuggingFace}), {@code model.safetensors},
 * {@code tokenizer.json} (copied as shipped), {@code vocab.txt} and {@code tokenizer_config.json} (derived from
 * it). The folder is built under a temporary name beside the target and renamed into place when complete, so
 * a refused or interrupted conversion leaves nothing half-written.
 */
public final class OnnxConversion {
  /** The resources of langchain4j's all-MiniLM-L6-v2 jar (Xenova's export of the sentence-transformers model). */
  static final String MINILM_ONNX = "all-minilm-l6-v2.onnx";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> FILES =
      List.of("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json", "vocab.txt");

  private OnnxConversion() {}

  /**
   * Converts {@code onnx} and {@code tokenizerJson} into the new folder {@code target}, which must not exist
   * yet; its parent is created. Refuses (one line naming the file) what {@link OnnxToHuggingFace} cannot map.
   */
  public static void toFolder(Path onnx, Path tokenizerJson, Path target, ProgressListener progress) {
    try {
      if (Files.exists(target)) {
        throw new HeadScopeException(target + " exists already; give a new folder for the converted model.");
      }
      Path parent = target.toAbsolutePath().getParent();
      Files.createDirectories(parent);
      write(Files.readAllBytes(onnx), onnx.toString(), tokenizerJson, parent.resolve(target.getFileName()),
          onnx.getFileName().toString(), FILES, progress);
    } catch (IOException e) {
      throw new HeadScopeException("Cannot convert " + onnx + " into " + target + ": " + e.getMessage(), e);
    }
  }

  /**
   * A user's {@code .onnx} file as a model: converted once into {@code cacheDir/<hash of the files>} and reused
   * while its manifest checks out. The tokenizer is the {@code tokenizer.json} beside the file, or in the folder
   * above it (the Hugging Face Hub's layout puts the export in {@code onnx/model.onnx}).
   */
  static ModelFiles cached(Path onnx, Path cacheDir, ProgressListener progress) {
    Path tokenizer = onnx.toAbsolutePath().resolveSibling("tokenizer.json");
    if (!Files.isRegularFile(tokenizer) && onnx.toAbsolutePath().getParent().getParent() != null) {
      tokenizer = onnx.toAbsolutePath().getParent().resolveSibling("tokenizer.json");
    }
    if (!Files.isRegularFile(tokenizer)) {
      throw new HeadScopeException(onnx + " has no tokenizer.json beside it (nor in the folder above, the Hugging "
          + "Face layout onnx/model.onnx); put the model's tokenizer.json there.");
    }
    String key = CacheManifest.sha256Of(onnx).substring(0, 16) + "-" + CacheManifest.sha256Of(tokenizer).substring(0, 8);
    Path dir = cacheDir.resolve(key);
    ModelFiles files = new ModelFiles(onnx.getFileName().toString(), dir.resolve("config.json"),
        dir.resolve("model.safetensors"), dir.resolve("tokenizer.json"));
    // a problem found in the converted folder is one of the user's files: name those
    io.headscope.model.core.CacheCopies.note(files.tokenizer(), tokenizer + " (as converted into HeadScope's cache)");
    io.headscope.model.core.CacheCopies.note(files.config(), "the config HeadScope derived from " + onnx);
    io.headscope.model.core.CacheCopies.note(files.weights(), onnx + " (as converted into HeadScope's cache)");
    try {
      if (Files.exists(dir)) {
        Map<String, String> damage = CacheManifest.exists(dir) ? CacheManifest.check(dir, FILES, List.of())
            : Map.of(CacheManifest.NAME, "is missing");
        if (damage.isEmpty()) {
          return files;
        }
        progress.progress("The cached conversion of " + onnx + " is damaged (" + CacheManifest.describe(damage)
            + "); converting it again", 0.0);
        ModelRepository.discard(dir);
      }
      Files.createDirectories(cacheDir);
      write(Files.readAllBytes(onnx), onnx.toString(), tokenizer, dir, onnx.getFileName().toString(), FILES, progress);
      return files;
    } catch (IOException e) {
      throw new HeadScopeException("Cannot convert " + onnx + " into the model cache " + cacheDir + ": "
          + e.getMessage(), e);
    }
  }

  /** Converts an embedded model's ONNX file and its tokenizer (both in its jar) into the cache folder {@code dir}. */
  static void convert(ModelRepository.Embedded model, Path dir, List<String> files, ProgressListener progress)
      throws IOException {
    Files.createDirectories(dir.getParent());
    ModelRepository.removeLeftovers(dir.getParent(), model.modelName);
    progress.progress("Reading " + model.resource, 0.0);
    byte[] onnx = resource(model, model.resource);
    String tokenizer = model.resource.substring(0, model.resource.length() - ".onnx".length()) + "-tokenizer.json";
    Path tmp = Files.createTempFile(dir.getParent(), "." + model.modelName + "-tokenizer", ".json");
    try {
      Files.write(tmp, resource(model, tokenizer));
      write(onnx, model.artifact() + "!/" + model.resource, tmp, dir, model.artifact(), files, progress);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  private static byte[] resource(ModelRepository.Embedded model, String name) throws IOException {
    try (InputStream in = OnnxConversion.class.getClassLoader().getResourceAsStream(name)) {
      if (in == null) {
        throw new HeadScopeException("The jar of " + model.modelName + " (" + model.artifact() + ") has no " + name + ".");
      }
      return in.readAllBytes();
    }
  }

  private static void write(byte[] onnx, String source, Path tokenizerJson, Path dir, String sourceLabel,
      List<String> files, ProgressListener progress) throws IOException {
    progress.progress("Reading the ONNX graph", 0.1);
    OnnxToHuggingFace.Converted model = OnnxToHuggingFace.convert(OnnxGraph.parse(onnx, source));
    List<String> vocab = vocabulary(tokenizerJson);
    if (vocab.size() > model.config().vocabSize()) {
      throw new HeadScopeException(tokenizerJson + " has " + vocab.size() + " tokens but " + source + " embeds only "
          + model.config().vocabSize() + ".");
    }
    // named by its writer (machine and PID), so the next conversion can tell a killed run's folder from a live one
    Path work = Files.createDirectory(dir.getParent().resolve(AtomicOutput.temporaryName(dir.getFileName().toString())));
    try {
      progress.progress("Writing model.safetensors", 0.5);
      Path out = work.resolve("model");
      Files.createDirectories(out);
      Safetensors.write(out.resolve("model.safetensors"), model.tensors(),
          new TreeMap<>(Map.of("format", "pt", "source", sourceLabel)));
      model.config().write(out.resolve("config.json"));
      Files.copy(tokenizerJson, out.resolve("tokenizer.json"));
      Files.write(out.resolve("vocab.txt"), vocab);
      Files.writeString(out.resolve("tokenizer_config.json"), "{\"do_lower_case\": " + lowercase(tokenizerJson)
          + ", \"model_max_length\": " + model.config().maxPositionEmbeddings() + "}\n");
      progress.progress("Finishing", 0.95);
      CacheManifest.write(out, files); // last: its presence says the folder is complete
      SafeFiles.publish(out, dir);
      progress.progress("Ready", 1.0);
    } finally {
      SafeFiles.deleteTree(work);
    }
  }

  /** The WordPiece vocabulary of a {@code tokenizer.json}, in id order (ids must be 0..n-1, each once). */
  private static List<String> vocabulary(Path tokenizerJson) {
    JsonNode vocab = tree(tokenizerJson).path("model").path("vocab");
    if (!vocab.isObject() || vocab.isEmpty()) {
      throw new HeadScopeException(tokenizerJson + " has no WordPiece vocabulary (model.vocab).");
    }
    String[] byId = new String[vocab.size()];
    for (Iterator<Map.Entry<String, JsonNode>> it = vocab.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      int id = e.getValue().asInt(-1);
      if (id < 0 || id >= byId.length || byId[id] != null) {
        throw new HeadScopeException(tokenizerJson + ": the vocabulary's ids are not 0.." + (byId.length - 1)
            + " each once (" + e.getKey() + " has " + e.getValue() + ").");
      }
      byId[id] = e.getKey();
    }
    return new ArrayList<>(List.of(byId));
  }

  private static boolean lowercase(Path tokenizerJson) {
    return tree(tokenizerJson).path("normalizer").path("lowercase").asBoolean(false);
  }

  private static JsonNode tree(Path json) {
    try {
      return JSON.readTree(json.toFile());
    } catch (IOException e) {
      throw new HeadScopeException(json + " is not valid JSON: " + e.getMessage().lines().findFirst().orElse(""), e);
    }
  }
}
