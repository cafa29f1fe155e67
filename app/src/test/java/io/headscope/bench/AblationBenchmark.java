package io.headscope.bench;

import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.analysis.ablation.AblationSweep;
import io.headscope.analysis.ablation.HeadImportance;
import io.headscope.analysis.ablation.MlmProbe;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ProgressListener;
import io.headscope.model.tokenizer.Encoding;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Medians of the ablation sweep and the gradient importance on bert-base-uncased (issue 4):
 * the naive sweep (one plain {@link BertModel#trace} per variant: intact, 144 heads) against the
 * optimised one (layers below cached, variants batched), a corpus sweep, and the gradient.
 * Prints figures; asserts nothing.
 *
 * <p>Arguments: {@code [repetitions] [corpus file] [corpus sentences]}; the corpus defaults to the
 * shipped {@code /headscope/corpus/english-sentences.txt}. {@code -Dbench.skipNaive=true} skips the
 * slow naive runs.
 */
public final class AblationBenchmark {
  /** 14 wordpieces, 16 tokens with [CLS] and [SEP]. */
  static final String SENTENCE = "the old man walked slowly along the river to the market every morning .";

  public static void main(String[] args) throws IOException {
    args = BenchJson.init(args);
    int reps = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    String corpus = args.length > 1 ? args[1] : null;
    int sentences = args.length > 2 ? Integer.parseInt(args[2]) : 100;
    System.out.printf(Locale.ROOT, "HeadScope ablation benchmark, %d cores, load average %s, %d repetitions (median)%n",
        Runtime.getRuntime().availableProcessors(), loadAverage(), reps);
    ModelFiles files = ModelRepository.standard().resolve(ModelRepository.DEFAULT_MODEL, ProgressListener.NONE);
    try (BertModel model = BertModel.load(files)) {
      Machine.print(model);
      Encoding input = model.encode(SENTENCE, null);
      System.out.printf(Locale.ROOT, "sentence: %d tokens%n", input.length());
      AblationSweep sweep = new AblationSweep(model);
      MlmProbe probe = MlmProbe.of(model, input, 0);
      List<Head> heads = Head.all(12, 12);

      sweep.run(input, AblationSweep.Options.DEFAULT); // warm-up
      model.trace(TraceRequest.of(probe.input()).top(1)).get(0);
      // interleaved, so that the naive and the optimised runs see the same load on a shared machine
      List<Double> naive = new ArrayList<>();
      List<Double> fast = new ArrayList<>();
      List<Double> fastLayers = new ArrayList<>();
      for (int r = 0; r < reps; r++) {
        if (r < Math.max(1, (reps + 1) / 2) && !Boolean.getBoolean("bench.skipNaive")) {
          naive.add(Benchmark.millis(() -> {
            model.trace(TraceRequest.of(probe.input()).top(1)).get(0);
            for (Head h : heads) {
              model.trace(TraceRequest.of(probe.input()).mask(HeadMask.of(Set.of(h), HeadMask.Mode.ZERO)).top(1))
                  .get(0);
            }
            return null;
          }));
        }
        fast.add(Benchmark.millis(() -> sweep.run(input, AblationSweep.Options.DEFAULT)));
        fastLayers.add(Benchmark.millis(
            () -> sweep.run(input, new AblationSweep.Options(HeadMask.Mode.ZERO, true, 0))));
      }
      double n = naive.isEmpty() ? Double.NaN : Benchmark.median(naive);
      double f = Benchmark.median(fast);
      System.out.printf(Locale.ROOT, "%-58s %10.0f ms   (%d runs)%n", "naive sweep, 145 plain forward passes (1740 layer passes)", n, naive.size());
      System.out.printf(Locale.ROOT, "%-58s %10.0f ms   (naive / optimised = %.1fx)%n",
          "optimised sweep, 144 heads (936 layer passes in 12 batches)", f, n / f);
      System.out.printf(Locale.ROOT, "%-58s %10.0f ms%n", "optimised sweep, 144 heads + 12 layers",
          Benchmark.median(fastLayers));
      BenchJson.add("naive sweep, 145 plain forward passes", n);
      BenchJson.add("optimised sweep, 144 heads", f, "naive sweep, 145 plain forward passes", n);
      BenchJson.add("optimised sweep, 144 heads + 12 layers", Benchmark.median(fastLayers));

      HeadImportance importance = new HeadImportance(model);
      importance.run(input, 0); // warm-up
      List<Double> grad = new ArrayList<>();
      for (int r = 0; r < reps; r++) {
        grad.add(Benchmark.millis(() -> importance.run(input, 0)));
      }
      System.out.printf(Locale.ROOT, "%-58s %10.0f ms%n", "gradient importance, one backward pass", Benchmark.median(grad));
      BenchJson.add("gradient importance, one backward pass", Benchmark.median(grad), "optimised sweep, 144 heads", f);

      List<Encoding> inputs = new ArrayList<>();
      for (String line : corpus(corpus)) {
        if (inputs.size() == sentences) {
          break;
        }
        String[] parts = line.split("\t", 2);
        inputs.add(model.encode(parts[0], parts.length > 1 ? parts[1] : null));
      }
      double mean = inputs.stream().mapToInt(Encoding::length).average().orElse(0);
      double total = Benchmark.millis(() -> sweep.run(inputs, AblationSweep.Options.DEFAULT, ProgressListener.NONE, () -> false));
      System.out.printf(Locale.ROOT, "%-58s %10.0f ms   (%.0f ms per sentence, mean %.1f tokens)%n",
          "corpus sweep, " + inputs.size() + " sentences, 144 heads, one run", total, total / inputs.size(), mean);
      BenchJson.add("corpus sweep, " + inputs.size() + " sentences, 144 heads, one run", total);
      if (inputs.size() < 100) {
        System.out.printf(Locale.ROOT, "%-58s %10.0f ms   (extrapolated)%n", "corpus sweep, 100 sentences", total * 100 / inputs.size());
      }
      double g = Benchmark.millis(() -> importance.run(inputs, 0, ProgressListener.NONE, () -> false));
      System.out.printf(Locale.ROOT, "%-58s %10.0f ms%n", "corpus gradient importance, " + inputs.size() + " sentences", g);
      BenchJson.add("corpus gradient importance, " + inputs.size() + " sentences, one run", g,
          "corpus sweep, " + inputs.size() + " sentences, 144 heads, one run", total);
    }
    System.out.printf(Locale.ROOT, "load average at the end: %s%n", loadAverage());
    BenchJson.write();
  }

  static List<String> corpus(String file) throws IOException {
    if (file != null) {
      return Files.readAllLines(Path.of(file), StandardCharsets.UTF_8).stream().filter(s -> !s.isBlank()).toList();
    }
    try (InputStream in = AblationBenchmark.class.getResourceAsStream("/headscope/corpus/english-sentences.txt")) {
      if (in == null) {
        throw new IOException("the shipped corpus is not on the class path: give a corpus file");
      }
      return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).lines().filter(s -> !s.isBlank()).toList();
    }
  }

  static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (IOException e) {
      return "unknown";
    }
  }
}
