package io.headscope.bench;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ProgressListener;
import io.headscope.model.testing.ProcessStats;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The soak run: thousands of analyses in one process on the full bert-base-uncased, printing resident
 * memory (VmRSS) and the native thread count every {@code every} calls, then the verdict: memory flat
 * within 10% of the first checkpoint and the thread count constant. It reports; it is not a test (the
 * fast JUnit version on a tiny model is {@code io.headscope.model.robust.SoakTest}).
 *
 * <p>Run from the test class path: {@code java -cp <test classpath> io.headscope.bench.Soak [calls] [every]}.
 * Every third analysis switches a few heads off, so the hook and head-mask paths are exercised too.
 */
public final class Soak {
  private static final List<String> FALLBACK = List.of(
      "the cat sat on the [MASK] .", "paris is the capital of [MASK] .", "she went to the store to buy milk .",
      "he [MASK] the ball across the field .", "the weather was cold and the roads were icy .");

  public static void main(String[] args) throws IOException {
    args = BenchJson.init(args);
    int calls = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
    int every = args.length > 1 ? Integer.parseInt(args[1]) : 500;
    List<String> inputs = sentences();
    HeadMask someOff = HeadMask.of(Set.of(new Head(4, 3), new Head(7, 9), new Head(10, 0)), HeadMask.Mode.ZERO);
    System.out.printf(Locale.ROOT, "HeadScope soak: %d analyses of %d short inputs, bert-base-uncased, %d cores%n",
        calls, inputs.size(), Runtime.getRuntime().availableProcessors());
    List<ProcessStats> checkpoints = new ArrayList<>();
    List<Double> seconds = new ArrayList<>(); // at each checkpoint, for --json
    long checksum = 0;
    long start = System.nanoTime();
    try (BertModel model = BertModel.load(
        ModelRepository.standard().resolve(ModelRepository.DEFAULT_MODEL, ProgressListener.NONE))) {
      for (int i = 1; i <= calls; i++) {
        String text = inputs.get(i % inputs.size());
        AttentionTrace t = model.trace(TraceRequest.of(model.encode(text, null))
            .mask(i % 3 == 0 ? someOff : HeadMask.NONE)).get(0);
        checksum += t.attention().length + t.predictions().size(); // keep the result observably used
        if (i % every == 0) {
          ProcessStats s = ProcessStats.now();
          checkpoints.add(s);
          seconds.add((System.nanoTime() - start) / 1e9);
          System.out.printf(Locale.ROOT, "%6d analyses  RSS %8.1f MB  threads %3d  heap used %6.1f MB  %.1f s%n",
              i, s.rssMb(), s.threads(),
              (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) / 1048576.0,
              (System.nanoTime() - start) / 1e9);
        }
      }
    }
    verdict(checkpoints, checksum);
    figures(seconds, every);
    BenchJson.write();
  }

  /**
   * For --json: the time per analysis in each interval between checkpoints, median over intervals,
   * beside the first interval's (a ratio above 1 means the process slowed down as it aged).
   */
  static void figures(List<Double> seconds, int every) {
    List<Double> perCall = new ArrayList<>();
    for (int i = 1; i < seconds.size(); i++) {
      perCall.add((seconds.get(i) - seconds.get(i - 1)) * 1000 / every);
    }
    if (!perCall.isEmpty()) {
      BenchJson.add("soak: one analysis, median over intervals of " + every, Benchmark.median(perCall),
          "the first interval", perCall.get(0));
    }
  }

  static void verdict(List<ProcessStats> checkpoints, long checksum) {
    if (checkpoints.isEmpty()) {
      System.out.println("verdict: no checkpoint (fewer calls than the interval)");
      return;
    }
    ProcessStats first = checkpoints.get(0);
    double min = checkpoints.stream().mapToLong(ProcessStats::rssKb).min().orElse(0);
    double max = checkpoints.stream().mapToLong(ProcessStats::rssKb).max().orElse(0);
    double growth = (checkpoints.get(checkpoints.size() - 1).rssKb() - first.rssKb()) * 100.0 / first.rssKb();
    double spread = (max - min) * 100.0 / first.rssKb();
    boolean flat = spread <= 10.0;
    // A leak adds threads; the JVM on its own may retire an idle JIT compiler thread, so "no growth"
    // past the first checkpoint is the criterion.
    boolean threadsConstant = checkpoints.stream().allMatch(s -> s.threads() <= first.threads());
    System.out.printf(Locale.ROOT,
        "verdict: RSS %s (first %.1f MB, last %.1f MB, growth %+.1f%%, spread %.1f%% of the first), threads %s (%s)"
            + " [checksum %d]%n",
        flat ? "FLAT" : "NOT FLAT", first.rssMb(), checkpoints.get(checkpoints.size() - 1).rssMb(), growth, spread,
        threadsConstant ? "NOT GROWING" : "GROWING",
        checkpoints.stream().map(s -> Integer.toString(s.threads())).distinct().reduce((a, b) -> a + "," + b)
            .orElse(""),
        checksum);
  }

  /** Short English inputs from the shipped corpus (first 50), or a few built-in ones. */
  private static List<String> sentences() throws IOException {
    List<String> out = new ArrayList<>();
    for (String name : List.of("/headscope/corpus/masked-sentences.txt", "/headscope/corpus/english-sentences.txt")) {
      try (InputStream in = Soak.class.getResourceAsStream(name)) {
        if (in == null) {
          continue;
        }
        BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        for (String line; (line = r.readLine()) != null && out.size() < 50; ) {
          if (!line.isBlank() && !line.startsWith("#") && line.length() < 120) {
            out.add(line.trim());
          }
        }
      }
    }
    return out.isEmpty() ? FALLBACK : out;
  }
}
