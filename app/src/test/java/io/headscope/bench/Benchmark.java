package io.headscope.bench;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.reference.TensorFlowBert;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ProgressListener;
import io.headscope.model.store.SafeFiles;
import io.headscope.model.tokenizer.Encoding;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * {@code ./headscope bench}: medians of the engine's costs, each beside its peer measured in the
 * same run (TensorFlow's own graph of the same weights, or the machine's matrix-multiply peak).
 * A benchmark reports; it asserts nothing.
 */
public final class Benchmark {
  private static final String SENTENCE =
      "the history of the city is long and complicated , and many people have written about the river ,"
          + " the bridges , the markets and the families who lived near the old harbour for centuries .";

  public static void main(String[] args) throws Exception {
    args = BenchJson.init(args);
    int reps = args.length > 0 ? Integer.parseInt(args[0]) : 15;
    System.out.printf(Locale.ROOT, "HeadScope benchmark, %d cores, %d repetitions (median)%n",
        Runtime.getRuntime().availableProcessors(), reps);
    Path tmp = Files.createTempDirectory("headscope-bench");
    try {
      firstAndWarmStart(tmp);
    } finally {
      SafeFiles.deleteTree(tmp);
    }
    ModelFiles files = ModelRepository.standard().resolve(ModelRepository.DEFAULT_MODEL, ProgressListener.NONE);
    try (BertModel model = BertModel.load(files, "gelu_new");
        TensorFlowBert tf = TensorFlowBert.openEmbedded("uncased")) {
      Machine.print(model);
      forwardPasses(model, tf, reps);
      batch(model, tf, Math.max(3, reps / 3));
      memory(model);
    }
    BenchJson.write();
  }

  static void firstAndWarmStart(Path tmp) {
    List<Double> first = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      Path cache = tmp.resolve("cache" + i);
      first.add(millis(() -> {
        ModelFiles f = new ModelRepository(cache).resolve(ModelRepository.DEFAULT_MODEL, ProgressListener.NONE);
        BertModel m = BertModel.load(f);
        m.trace(m.encode("hello world", null));
        m.close();
        return null;
      }));
    }
    row("first start (convert + load + one input)", median(first), Double.NaN, null);
    List<Double> warm = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      warm.add(millis(() -> {
        ModelFiles f = new ModelRepository(tmp.resolve("cache0")).resolve(ModelRepository.DEFAULT_MODEL, ProgressListener.NONE);
        BertModel m = BertModel.load(f);
        m.trace(m.encode("hello world", null));
        m.close();
        return null;
      }));
    }
    row("warm start in-process (load cache + one input)", median(warm), Double.NaN, null);
    List<Double> process = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      process.add(millis(() -> runCli("predict", "--text", "Hello I'm a [MASK] model.")));
    }
    row("warm start of a new process (java ... predict)", median(process), Double.NaN, null);
  }

  /** Runs the app's CLI in a fresh JVM, as a user's command would, from the runtime class path. */
  static Void runCli(String... args) {
    try {
      String cp = System.getProperty("headscope.runtimeClasspath", System.getProperty("java.class.path"));
      List<String> cmd = new ArrayList<>(List.of(
          Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", cp, "io.headscope.app.Launcher"));
      cmd.addAll(List.of(args));
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      if (p.waitFor() != 0) {
        throw new IllegalStateException("CLI failed: " + cmd);
      }
      return null;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static void forwardPasses(BertModel model, TensorFlowBert tf, int reps) {
    for (int length : new int[] {16, 64, 128}) {
      Encoding input = ofLength(model, length);
      int[][] ids = {toInts(input.ids())};
      int[][] seg = {toInts(input.segments())};
      for (int i = 0; i < 3; i++) { // warm up both
        model.trace(input);
        tf.run(ids, seg);
      }
      List<Double> ours = new ArrayList<>();
      List<Double> theirs = new ArrayList<>();
      for (int i = 0; i < reps; i++) {
        ours.add(settledMillis(() -> model.trace(input)));
        theirs.add(settledMillis(() -> tf.run(ids, seg)));
      }
      row("one input, " + length + " tokens, all maps + norms", median(ours), median(theirs), "TensorFlow");
    }
  }

  static void batch(BertModel model, TensorFlowBert tf, int reps) {
    List<Encoding> inputs = new ArrayList<>();
    for (int i = 0; i < 32; i++) {
      inputs.add(ofLength(model, 20));
    }
    int[][] ids = inputs.stream().map(e -> toInts(e.ids())).toArray(int[][]::new);
    int[][] seg = inputs.stream().map(e -> toInts(e.segments())).toArray(int[][]::new);
    model.trace(TraceRequest.of(inputs));
    tf.run(ids, seg);
    List<Double> ours = new ArrayList<>();
    List<Double> theirs = new ArrayList<>();
    for (int i = 0; i < reps; i++) {
      ours.add(settledMillis(() -> model.trace(TraceRequest.of(inputs))));
      theirs.add(settledMillis(() -> tf.run(ids, seg)));
    }
    row("batch of 32 x 20 tokens", median(ours), median(theirs), "TensorFlow (at 128)");
    double gflops = matmulPeak();
    double tokens = 32 * 20;
    double flops = tokens * 2 * 85e6 + 12 * 4.0 * 20 * 20 * 768 * 32;
    double bound = flops / (gflops * 1e9) * 1000;
    row("batch of 32 x 20 tokens", median(ours), bound,
        String.format(Locale.ROOT, "matmul-peak bound (%.0f GFLOP/s)", gflops));
  }

  static void memory(BertModel model) {
    Encoding input = ofLength(model, 64);
    for (int i = 0; i < 50; i++) {
      model.trace(input);
    }
    long before = rssMb();
    long start = System.nanoTime();
    for (int i = 0; i < 1000; i++) {
      model.trace(input);
    }
    double perCall = (System.nanoTime() - start) / 1e6 / 1000;
    long after = rssMb();
    System.out.printf(Locale.ROOT, "%-50s %8d MB after 50 calls, %d MB after 1050 (%+d MB); %.1f ms/call%n",
        "resident memory over 1000 calls (64 tokens)", before, after, after - before, perCall);
    BenchJson.add("one input of 64 tokens, mean of 1000 calls", perCall);
  }

  /** A wordpiece input of exactly {@code n} tokens including [CLS] and [SEP]. */
  static Encoding ofLength(BertModel model, int n) {
    StringBuilder text = new StringBuilder();
    Encoding e;
    do {
      text.append(SENTENCE).append(' ');
      e = model.encode(text.toString(), null);
    } while (e.length() < n);
    long[] ids = Arrays.copyOf(e.ids(), n);
    ids[n - 1] = e.ids()[e.length() - 1]; // keep the closing [SEP]
    List<String> tokens = new ArrayList<>(e.tokens().subList(0, n));
    tokens.set(n - 1, "[SEP]");
    return new Encoding(tokens, ids, new long[n], -1, 0);
  }

  static double matmulPeak() {
    try (NDManager m = NDManager.newBaseManager(Device.cpu(), "PyTorch")) {
      NDArray a = m.randomNormal(new ai.djl.ndarray.types.Shape(2048, 2048));
      NDArray b = m.randomNormal(new ai.djl.ndarray.types.Shape(2048, 2048));
      a.matMul(b).close();
      List<Double> t = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        t.add(millis(() -> {
          a.matMul(b).close();
          return null;
        }));
      }
      return 2.0 * 2048 * 2048 * 2048 / (median(t) / 1000) / 1e9;
    }
  }

  static long rssMb() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("\\D", "")) / 1024;
        }
      }
    } catch (IOException ignored) {
      // not Linux
    }
    return -1;
  }

  static int[] toInts(long[] a) {
    return Arrays.stream(a).mapToInt(x -> (int) x).toArray();
  }

  static double millis(Supplier<?> work) {
    long t = System.nanoTime();
    work.get();
    return (System.nanoTime() - t) / 1e6;
  }

  /**
   * {@link #millis} after a pause: both engines keep their worker threads spinning for a while after a
   * call (OpenMP's and Eigen's spin-waits), and on two cores whichever runs next would pay for the
   * other's spinning. The pause lets both sides start on idle cores.
   */
  static double settledMillis(Supplier<?> work) {
    try {
      Thread.sleep(200);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return millis(work);
  }

  static double median(List<Double> xs) {
    double[] s = xs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }

  static void row(String what, double ours, double peer, String peerName) {
    BenchJson.add(what, ours, peerName, peer);
    if (peerName == null) {
      System.out.printf(Locale.ROOT, "%-50s %9.1f ms%n", what, ours);
    } else {
      System.out.printf(Locale.ROOT, "%-50s %9.1f ms   %-32s %9.1f ms   ratio %.2fx%n",
          what, ours, peerName, peer, ours / peer);
    }
  }
}
