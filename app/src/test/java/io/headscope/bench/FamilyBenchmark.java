package io.headscope.bench;

import io.headscope.model.BertModel;
import io.headscope.model.checkpoint.FloatTensor;
import io.headscope.model.checkpoint.Safetensors;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ModelFiles;
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
import java.util.Map;
import java.util.Random;

/**
 * A GPT-2-small-shaped model (12 layers of 12 heads, 768 wide, 50,257 tokens, pre-LayerNorm, causal)
 * beside bert-base-uncased, the peer, in the same run: one forward pass of a 128- and a 512-token input
 * that reads the prediction at one position (the goal: within 15% of bert-base's time), and the
 * process's resident memory after both (goal: under 2 GB). The GPT-2's weights are random (the timing
 * does not depend on them) and written once to a temporary folder; its inputs are random token ids.
 *
 * <p>Arguments: {@code [repetitions (5)]}, {@code --profile} (then, per length, libtorch's self time per
 * operation for each model, side by side: where the GPT-2's extra time goes) and {@code --json FILE}.
 */
public final class FamilyBenchmark {
  public static void main(String[] args) throws IOException {
    args = BenchJson.init(args);
    boolean profile = java.util.Arrays.asList(args).contains("--profile");
    args = java.util.Arrays.stream(args).filter(a -> !a.equals("--profile")).toArray(String[]::new);
    int reps = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    System.out.printf(Locale.ROOT, "HeadScope model-family benchmark, %d cores, load average %s, %d repetitions "
        + "(median)%n", Runtime.getRuntime().availableProcessors(), AblationBenchmark.loadAverage(), reps);
    ModelFiles bertFiles = ModelRepository.standard().resolve(ModelRepository.DEFAULT_MODEL, ProgressListener.NONE);
    Path dir = Files.createTempDirectory("headscope-gpt2-bench");
    try {
      ModelFiles gptFiles = writeGpt2Small(dir, bertFiles.tokenizer());
      long before = residentBytes();
      try (BertModel bert = BertModel.load(bertFiles)) {
        long withBert = residentBytes();
        try (BertModel gpt = BertModel.load(gptFiles)) {
          Machine.print(bert);
          for (int tokens : new int[] {128, 512}) {
            Encoding b = randomInput(tokens, 30522, 1);
            Encoding g = randomInput(tokens, 50257, 2);
            // interleaved, one of each per round, so a burst of other work on the machine falls on both
            FavorBenchmark.Time[] t = interleaved(reps, () -> onePosition(bert, b), () -> onePosition(gpt, g));
            FavorBenchmark.Time tb = t[0];
            FavorBenchmark.Time tg = t[1];
            String peer = "bert-base-uncased, " + tokens + " tokens, one position read";
            System.out.printf(Locale.ROOT, "%-70s %9.1f ms wall %9.1f ms CPU%n", peer + " (peer)", tb.wall(), tb.cpu());
            String what = "GPT-2-small shape, " + tokens + " tokens, one position read (goal: within 15%)";
            System.out.printf(Locale.ROOT, "%-70s %9.1f ms wall %9.1f ms CPU   %.2fx the peer%n", what, tg.wall(),
                tg.cpu(), tg.wall() / tb.wall());
            BenchJson.add(peer, tb.wall());
            BenchJson.add(what, tg.wall(), peer, tb.wall());
            if (profile) {
              profileSideBySide(tokens, reps, dir, () -> onePosition(bert, b), () -> onePosition(gpt, g));
            }
          }
          long both = residentBytes();
          System.out.printf(Locale.ROOT, "resident memory: %.2f GB before the models, +%.2f GB for bert-base, "
              + "+%.2f GB for the GPT-2 after its runs (goal: the GPT-2 alone under 2 GB)%n", before / 1e9,
              (withBert - before) / 1e9, (both - withBert) / 1e9);
        }
      }
    } finally {
      SafeFiles.deleteTree(dir);
    }
    BenchJson.write();
  }

  /** libtorch's self time per operation for each model at one length, the largest differences first. */
  private static void profileSideBySide(int tokens, int reps, Path dir, Runnable bert, Runnable gpt) throws IOException {
    Map<String, double[]> ops = new java.util.HashMap<>(); // name -> {bert ms, gpt ms, bert calls, gpt calls}
    Runnable[] runs = {bert, gpt};
    for (int m = 0; m < 2; m++) {
      Path trace = dir.resolve("trace-" + tokens + "-" + m + ".json");
      ai.djl.pytorch.jni.JniUtils.startProfile(false, true, false);
      for (int i = 0; i < reps; i++) {
        runs[m].run();
      }
      ai.djl.pytorch.jni.JniUtils.stopProfile(trace.toString());
      try {
        for (ProfileBenchmark.OpTime o : ProfileBenchmark.selfTimes(trace)) {
          double[] v = ops.computeIfAbsent(o.name(), k -> new double[4]);
          v[m] = o.selfMs() / reps;
          v[2 + m] = o.calls() / (double) reps;
        }
      } catch (Exception e) {
        throw new IOException(e);
      }
    }
    System.out.printf(Locale.ROOT, "  %d tokens, libtorch self time per run (profiled, %d runs each), largest "
        + "differences first:%n  %-32s %10s %10s %10s %8s %8s%n", tokens, reps, "operation", "bert ms", "gpt2 ms",
        "gpt2-bert", "calls b", "calls g");
    ops.entrySet().stream().sorted((x, y) -> Double.compare(Math.abs(y.getValue()[1] - y.getValue()[0]),
        Math.abs(x.getValue()[1] - x.getValue()[0]))).limit(14).forEach(e -> System.out.printf(Locale.ROOT,
        "  %-32s %10.2f %10.2f %+10.2f %8.0f %8.0f%n", e.getKey(), e.getValue()[0], e.getValue()[1],
        e.getValue()[1] - e.getValue()[0], e.getValue()[2], e.getValue()[3]));
  }

  /** Medians of wall and CPU time of {@code a} and {@code b}, run alternately {@code reps} times after a warm-up. */
  static FavorBenchmark.Time[] interleaved(int reps, java.util.function.Supplier<?> a, java.util.function.Supplier<?> b) {
    a.get();
    b.get();
    var os = (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    List<List<Double>> wall = List.of(new ArrayList<>(), new ArrayList<>());
    List<List<Double>> cpu = List.of(new ArrayList<>(), new ArrayList<>());
    List<java.util.function.Supplier<?>> work = List.of(a, b);
    for (int r = 0; r < reps; r++) {
      for (int k = 0; k < 2; k++) {
        long c0 = os.getProcessCpuTime();
        wall.get(k).add(Benchmark.millis(work.get(k)));
        cpu.get(k).add((os.getProcessCpuTime() - c0) / 1e6);
      }
    }
    return new FavorBenchmark.Time[] {
        new FavorBenchmark.Time(Benchmark.median(wall.get(0)), Benchmark.median(cpu.get(0))),
        new FavorBenchmark.Time(Benchmark.median(wall.get(1)), Benchmark.median(cpu.get(1)))};
  }

  private static Object onePosition(BertModel model, Encoding e) {
    return model.run(RunRequest.of(e).read(Readouts.none().withLogProbs(new int[] {e.length() - 1})));
  }

  private static Encoding randomInput(int tokens, int vocab, long seed) {
    Random r = new Random(seed);
    long[] ids = new long[tokens];
    List<String> names = new ArrayList<>();
    for (int i = 0; i < tokens; i++) {
      ids[i] = 1000 + r.nextInt(vocab - 1000);
      names.add("t" + ids[i]);
    }
    return new Encoding(names, ids, new long[tokens], -1, 0);
  }

  /** GPT-2 small's shapes under GPT2LMHeadModel's names, N(0, 0.02) weights, unit LayerNorms. */
  static ModelFiles writeGpt2Small(Path dir, Path tokenizer) throws IOException {
    int d = 768;
    int layers = 12;
    int vocab = 50257;
    int positions = 1024;
    Random r = new Random(7);
    List<FloatTensor> t = new ArrayList<>();
    t.add(normal(r, "transformer.wte.weight", vocab, d));
    t.add(normal(r, "transformer.wpe.weight", positions, d));
    for (int l = 0; l < layers; l++) {
      String p = "transformer.h." + l + ".";
      t.add(ones(p + "ln_1.weight", d));
      t.add(zeros(p + "ln_1.bias", d));
      t.add(normal(r, p + "attn.c_attn.weight", d, 3 * d)); // Conv1D: (in, out)
      t.add(zeros(p + "attn.c_attn.bias", 3 * d));
      t.add(normal(r, p + "attn.c_proj.weight", d, d));
      t.add(zeros(p + "attn.c_proj.bias", d));
      t.add(ones(p + "ln_2.weight", d));
      t.add(zeros(p + "ln_2.bias", d));
      t.add(normal(r, p + "mlp.c_fc.weight", d, 4 * d));
      t.add(zeros(p + "mlp.c_fc.bias", 4 * d));
      t.add(normal(r, p + "mlp.c_proj.weight", 4 * d, d));
      t.add(zeros(p + "mlp.c_proj.bias", d));
    }
    t.add(ones("transformer.ln_f.weight", d));
    t.add(zeros("transformer.ln_f.bias", d));
    Safetensors.write(dir.resolve("model.safetensors"), t, Map.of("format", "pt"));
    Files.writeString(dir.resolve("config.json"), "{\"model_type\": \"gpt2\", \"architectures\": [\"GPT2LMHeadModel\"], "
        + "\"vocab_size\": " + vocab + ", \"n_embd\": " + d + ", \"n_layer\": " + layers + ", \"n_head\": 12, "
        + "\"n_positions\": " + positions + ", \"n_inner\": null, \"activation_function\": \"" + System.getProperty("bench.act", "gelu_new") + "\", "
        + "\"layer_norm_epsilon\": 1e-05}");
    // the engine reads ids; any tokenizer whose vocabulary fits the model's will do for timing
    Files.copy(tokenizer, dir.resolve("tokenizer.json"));
    return new ModelFiles("gpt2-small-shaped", dir.resolve("config.json"), dir.resolve("model.safetensors"),
        dir.resolve("tokenizer.json"));
  }

  private static FloatTensor normal(Random r, String name, int rows, int cols) {
    float[] v = new float[rows * cols];
    for (int i = 0; i < v.length; i++) {
      v[i] = (float) (r.nextGaussian() * 0.02);
    }
    return new FloatTensor(name, new long[] {rows, cols}, v);
  }

  private static FloatTensor ones(String name, int n) {
    float[] v = new float[n];
    Arrays.fill(v, 1f);
    return new FloatTensor(name, new long[] {n}, v);
  }

  private static FloatTensor zeros(String name, int n) {
    return new FloatTensor(name, new long[] {n}, new float[n]);
  }

  /** VmRSS from /proc/self/status. */
  private static long residentBytes() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
      }
    }
    return -1;
  }
}
