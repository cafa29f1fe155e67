package io.headscope.bench;

import ai.djl.pytorch.jni.JniUtils;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.headscope.model.BertModel;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ProgressListener;
import io.headscope.model.tokenizer.Encoding;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code ./headscope bench profile [reps] [lengths]}: where the time of one input with all maps and norms
 * goes (issue 17), operation by operation, from libtorch's own profiler (DJL's
 * {@code JniUtils.startProfile}): per length, the self time of each aten operation (its time minus the
 * operations it called) summed over the repetitions and divided by them, its number of calls per input,
 * and its share of the wall time; "outside libtorch" is the wall time no operation accounts for (Java:
 * building the request, copying maps and norms out to Java arrays, JNI crossings). The profiler adds
 * its own overhead, so the wall times here are above the plain benchmark's; the shares are what it is
 * for. Prints; asserts nothing.
 */
public final class ProfileBenchmark {
  public static void main(String[] args) throws Exception {
    int reps = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    boolean sweep = args.length > 1 && args[1].equals("sweep");
    int[] lengths = sweep ? new int[0]
        : args.length > 1 ? java.util.Arrays.stream(args[1].split(",")).mapToInt(Integer::parseInt).toArray()
        : new int[] {16, 128, 512};
    ModelFiles files = ModelRepository.standard().resolve(ModelRepository.DEFAULT_MODEL, ProgressListener.NONE);
    Path dir = Files.createTempDirectory("headscope-profile");
    try (BertModel model = BertModel.load(files)) {
      Machine.print(model);
      // libtorch is loaded with the model
      System.out.printf(Locale.ROOT, "HeadScope profile of one input with all maps and norms, %d cores, load average "
          + "%s, %d repetitions, libtorch threads %d intra-op / %d inter-op%n", Runtime.getRuntime().availableProcessors(),
          AblationBenchmark.loadAverage(), reps, JniUtils.getNumThreads(), JniUtils.getNumInteropThreads());
      if (sweep) {
        // the ablation sweep of one 16-token sentence: 12 batches of 12 variants from each layer up
        io.headscope.analysis.ablation.AblationSweep s = new io.headscope.analysis.ablation.AblationSweep(model);
        Encoding input = model.encode(AblationBenchmark.SENTENCE, null);
        io.headscope.analysis.ablation.AblationSweep.Options o = io.headscope.analysis.ablation.AblationSweep.Options.DEFAULT;
        s.run(input, o);
        List<Double> plain = new ArrayList<>();
        for (int i = 0; i < reps; i++) {
          plain.add(Benchmark.millis(() -> s.run(input, o)));
        }
        Path trace = dir.resolve("trace-sweep.json");
        JniUtils.startProfile(false, true, false);
        long start = System.nanoTime();
        for (int i = 0; i < reps; i++) {
          s.run(input, o);
        }
        double wall = (System.nanoTime() - start) / 1e6 / reps;
        JniUtils.stopProfile(trace.toString());
        report("the ablation sweep of one " + input.length() + "-token sentence", Benchmark.median(plain), wall,
            selfTimes(trace), reps);
      }
      for (int n : lengths) {
        Encoding input = Benchmark.ofLength(model, n);
        for (int i = 0; i < 3; i++) {
          model.trace(input);
        }
        List<Double> plain = new ArrayList<>();
        for (int i = 0; i < reps; i++) {
          plain.add(Benchmark.millis(() -> model.trace(input)));
        }
        Path trace = dir.resolve("trace-" + n + ".json");
        JniUtils.startProfile(false, true, false);
        long start = System.nanoTime();
        for (int i = 0; i < reps; i++) {
          model.trace(input);
        }
        double wall = (System.nanoTime() - start) / 1e6 / reps;
        JniUtils.stopProfile(trace.toString());
        report(n + " tokens", Benchmark.median(plain), wall, selfTimes(trace), reps);
      }
    } finally {
      io.headscope.model.store.SafeFiles.deleteTree(dir);
    }
  }

  /** Self time and calls of each operation, summed over the whole trace. */
  record OpTime(String name, double selfMs, int calls) {}

  static List<OpTime> selfTimes(Path trace) throws Exception {
    JsonNode root = new ObjectMapper().readTree(trace.toFile());
    JsonNode events = root.isArray() ? root : root.path("traceEvents");
    // per thread, events by start; a stack of open events gives each one's direct children
    Map<String, List<JsonNode>> byThread = new HashMap<>();
    for (JsonNode e : events) {
      if ("X".equals(e.path("ph").asText()) && e.has("dur")) {
        byThread.computeIfAbsent(e.path("pid").asText() + "/" + e.path("tid").asText(), k -> new ArrayList<>()).add(e);
      }
    }
    Map<String, double[]> self = new HashMap<>(); // name -> {self us, calls}
    for (List<JsonNode> list : byThread.values()) {
      list.sort(Comparator.comparingDouble((JsonNode e) -> e.path("ts").asDouble())
          .thenComparing(e -> -e.path("dur").asDouble()));
      Deque<double[]> open = new ArrayDeque<>(); // {end, index}
      double[] childTime = new double[list.size()];
      for (int i = 0; i < list.size(); i++) {
        JsonNode e = list.get(i);
        double ts = e.path("ts").asDouble();
        double dur = e.path("dur").asDouble();
        while (!open.isEmpty() && open.peek()[0] <= ts) {
          open.pop();
        }
        if (!open.isEmpty()) {
          childTime[(int) open.peek()[1]] += dur;
        }
        open.push(new double[] {ts + dur, i});
      }
      for (int i = 0; i < list.size(); i++) {
        JsonNode e = list.get(i);
        double[] s = self.computeIfAbsent(e.path("name").asText(), k -> new double[2]);
        s[0] += Math.max(0, e.path("dur").asDouble() - childTime[i]);
        s[1] += 1;
      }
    }
    List<OpTime> out = new ArrayList<>();
    self.forEach((name, s) -> out.add(new OpTime(name, s[0] / 1000, (int) s[1])));
    out.sort(Comparator.comparingDouble(OpTime::selfMs).reversed());
    return out;
  }

  private static void report(String what, double plainMs, double profiledMs, List<OpTime> ops, int reps) {
    double inOps = ops.stream().mapToDouble(OpTime::selfMs).sum() / reps;
    System.out.printf(Locale.ROOT, "%n%s: %.1f ms per run without the profiler, %.1f ms with it; "
        + "libtorch operations %.1f ms (%.0f%%), outside libtorch %.1f ms (%.0f%%)%n", what, plainMs, profiledMs, inOps,
        100 * inOps / profiledMs, profiledMs - inOps, 100 * (profiledMs - inOps) / profiledMs);
    System.out.printf(Locale.ROOT, "  %-34s %10s %8s %7s%n", "operation (self time)", "ms/input", "calls", "share");
    int shown = 0;
    for (OpTime o : ops) {
      if (shown++ == 14) {
        break;
      }
      System.out.printf(Locale.ROOT, "  %-34s %10.2f %8d %6.1f%%%n", o.name(), o.selfMs() / reps, o.calls() / reps,
          100 * o.selfMs() / reps / profiledMs);
    }
  }
}
