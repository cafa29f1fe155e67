package io.headscope.bench;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.Shape;
import io.headscope.analysis.favor.FavorAnalysis;
import io.headscope.analysis.favor.RandomFeatures;
import io.headscope.model.BertModel;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ProgressListener;
import io.headscope.model.tokenizer.Encoding;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Medians of the FAVOR+ analysis on bert-base-uncased (issue 18): map errors of all 144 heads (5 m x 8
 * draws x ORF and iid) on one 32-token input, the per-head effect sweep at one m, a 512-token forward with
 * every head on FAVOR+ (m = 64) beside the exact forward, and the attention kernel alone, softmax against
 * linear FAVOR+ (12 heads, d_h = 64, m = 64) over lengths, to find where linear attention pays off.
 * Prints figures; asserts nothing. Arguments: {@code [repetitions]}.
 */
public final class FavorBenchmark {
  static final int[] FEATURES = {16, 32, 64, 128, 256};

  /** Arguments: {@code [repetitions] [kernels]}; {@code kernels} runs only the attention kernels (no model). */
  public static void main(String[] args) throws IOException {
    int reps = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    if (args.length > 1 && args[1].equals("kernels")) {
      kernels(reps);
      return;
    }
    System.out.printf(Locale.ROOT, "HeadScope FAVOR+ benchmark, %d cores, load average %s, %d repetitions (median)%n",
        Runtime.getRuntime().availableProcessors(), AblationBenchmark.loadAverage(), reps);
    ModelFiles files = ModelRepository.standard().resolve(ModelRepository.DEFAULT_MODEL, ProgressListener.NONE);
    try (BertModel model = BertModel.load(files)) {
      Machine.print(model);
      List<String> corpus = AblationBenchmark.corpus(null);
      Encoding e32 = prefix(model, corpus, 32);
      Encoding e512 = prefix(model, corpus, 512);
      System.out.printf(Locale.ROOT, "inputs: %d and %d tokens%n", e32.length(), e512.length());
      var both = List.of(RandomFeatures.Kind.ORF, RandomFeatures.Kind.IID);
      var maps = new FavorAnalysis.Options(FEATURES, 8, 0, both, false);
      print("map errors: 144 heads x 5 m x 8 draws x ORF+iid (goal < 10 s)",
          median(reps, () -> FavorAnalysis.run(model, List.of(e32), maps, ProgressListener.NONE, () -> false)));
      var effect = new FavorAnalysis.Options(new int[] {64}, 1, 0, List.of(RandomFeatures.Kind.ORF), true);
      print("effect sweep at m = 64 (ORF): 144 heads + 12 layers + all + off, 1 draw (goal < 3 s)",
          median(reps, () -> FavorAnalysis.run(model, List.of(e32), effect, ProgressListener.NONE, () -> false)));

      Time exact = median(reps, () -> model.run(RunRequest.of(e512)));
      Time favor = median(reps, () -> model.run(FavorAnalysis.allHeadsOnFavor(model, RunRequest.of(e512), 0, 64,
          RandomFeatures.Kind.ORF, 0)));
      print("512-token forward, exact softmax", exact);
      print("512-token forward, every head on FAVOR+ m = 64 (maps built in Java, then n x n)", favor);
      kernels(reps);
    }
    System.out.printf(Locale.ROOT, "load average at the end: %s%n", AblationBenchmark.loadAverage());
  }

  /** Words of the corpus until the input has {@code tokens} wordpieces (the encoder cuts at 512). */
  static Encoding prefix(BertModel model, List<String> corpus, int tokens) {
    StringBuilder text = new StringBuilder();
    Encoding e = null;
    for (String line : corpus) {
      for (String word : line.split("\\s+")) {
        text.append(word).append(' ');
        e = model.encode(text.toString(), null);
        if (e.length() >= tokens) {
          return e;
        }
      }
    }
    return e;
  }


  /**
   * One layer's attention for 12 heads, d_h = 64, in the PyTorch engine: softmax {@code softmax(QK^T/8) V}
   * (O(n^2 d)) against FAVOR+ {@code D^-1 phi(Q) (phi(K)^T V)} with m = 64 (O(n m d)), never forming n x n.
   */
  static void kernels(int reps) {
    int h = 12;
    int dh = 64;
    int m = 64;
    System.out.printf(Locale.ROOT, "%nattention of one layer (12 heads, d_h 64), PyTorch engine; FAVOR+ m = %d%n", m);
    System.out.printf(Locale.ROOT, "%8s %24s %24s %14s%n", "n", "softmax ms (wall / CPU)", "FAVOR+ ms (wall / CPU)",
        "CPU ratio");
    try (NDManager nd = NDManager.newBaseManager(Device.cpu(), "PyTorch")) {
      NDArray w = nd.randomNormal(new Shape(dh, m)); // the random directions, as columns
      for (int n : new int[] {64, 128, 256, 512, 1024, 2048}) {
        try (NDManager s = nd.newSubManager()) {
          NDArray q = s.randomNormal(new Shape(h, n, dh)).mul(0.5);
          NDArray k = s.randomNormal(new Shape(h, n, dh)).mul(0.5);
          NDArray v = s.randomNormal(new Shape(h, n, dh));
          Supplier<NDArray> softmax = () -> q.matMul(k.transpose(0, 2, 1)).div(Math.sqrt(dh)).softmax(-1).matMul(v);
          Supplier<NDArray> linear = () -> {
            double scale = Math.pow(dh, -0.25);
            NDArray qs = q.mul(scale);
            NDArray ks = k.mul(scale);
            NDArray wq = qs.matMul(w); // (H, n, m)
            NDArray wk = ks.matMul(w);
            NDArray fq = wq.sub(qs.square().sum(new int[] {-1}, true).div(2)).sub(wq.max(new int[] {-1}, true)).exp();
            NDArray fk = wk.sub(ks.square().sum(new int[] {-1}, true).div(2)).sub(wk.max()).exp();
            NDArray kv = fk.transpose(0, 2, 1).matMul(v); // (H, m, dh)
            NDArray norm = fq.matMul(fk.sum(new int[] {1}, true).transpose(0, 2, 1)); // (H, n, 1)
            return fq.matMul(kv).div(norm);
          };
          scoped(s, softmax);
          scoped(s, linear);
          // short calls repeated inside one timing (the CPU clock ticks in 10 ms) and more timings, so the
          // median sees past other people's bursts; printed per call
          int calls = Math.max(1, 4096 / n);
          Time a = median(3 * reps + 6, () -> repeat(calls, () -> scoped(s, softmax)));
          Time b = median(3 * reps + 6, () -> repeat(calls, () -> scoped(s, linear)));
          System.out.printf(Locale.ROOT, "%8d %12.2f / %9.2f %12.2f / %9.2f %14.2f%n", n, a.wall() / calls,
              a.cpu() / calls, b.wall() / calls, b.cpu() / calls, a.cpu() / b.cpu());
        }
      }
    }
  }

  private static Object repeat(int calls, Supplier<?> work) {
    for (int i = 0; i < calls; i++) {
      work.get();
    }
    return null;
  }

  /** Every intermediate closed at the end (an n = 2048 softmax holds 200 MB a tensor). */
  private static Object scoped(NDManager parent, Supplier<NDArray> work) {
    try (NDScope scope = new NDScope()) {
      work.get().toFloatArray(); // forces the result, as a forward pass's read-out would
      return null;
    }
  }

  /** Wall and process-CPU milliseconds (medians). */
  record Time(double wall, double cpu) {}

  /**
   * Medians of wall time and of the whole process's CPU time (every thread, PyTorch's included): on a
   * shared machine the wall time waits for other people's work; the CPU time divided by the cores the
   * work can use is what an idle machine would take.
   */
  static Time median(int reps, Supplier<?> work) {
    work.get(); // warm-up
    var os = (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    List<Double> wall = new ArrayList<>();
    List<Double> cpu = new ArrayList<>();
    for (int r = 0; r < reps; r++) {
      long c0 = os.getProcessCpuTime();
      wall.add(Benchmark.millis(work));
      cpu.add((os.getProcessCpuTime() - c0) / 1e6);
    }
    return new Time(Benchmark.median(wall), Benchmark.median(cpu));
  }

  private static void print(String what, Time t) {
    System.out.printf(Locale.ROOT, "%-84s %8.0f ms wall %8.0f ms CPU%n", what, t.wall(), t.cpu());
  }
}
