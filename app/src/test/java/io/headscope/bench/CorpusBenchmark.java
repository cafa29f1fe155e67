package io.headscope.bench;

import io.headscope.analysis.corpus.Corpus;
import io.headscope.analysis.corpus.CorpusAnalysis;
import io.headscope.analysis.corpus.CorpusReader;
import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ProgressListener;
import io.headscope.model.tokenizer.Encoding;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Corpus speed: the shipped English pairs through {@link CorpusAnalysis} (batched forward passes plus
 * the classifier), in inputs per second, median of a few runs; and, to see where the time goes, the
 * forward passes alone and the classifier alone. Reports; asserts nothing.
 *
 * <p>Arguments: {@code [runs] [batch size] [corpus resource]}.
 */
public final class CorpusBenchmark {
  public static void main(String[] args) {
    args = BenchJson.init(args);
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    int batch = args.length > 1 ? Integer.parseInt(args[1]) : CorpusAnalysis.DEFAULT_BATCH;
    String name = args.length > 2 ? args[2] : "/headscope/corpus/english-pairs.txt";
    Corpus corpus = CorpusReader.resource(name);
    try (BertModel model = BertModel.load(
        ModelRepository.standard().resolve(ModelRepository.DEFAULT_MODEL, ProgressListener.NONE))) {
      int n = corpus.inputs().size();
      System.out.printf(Locale.ROOT, "%s: %d inputs, batch %d, %d cores, median of %d runs; load average %.2f%n",
          name, n, batch, Runtime.getRuntime().availableProcessors(), runs, load());
      Machine.print(model);
      CorpusAnalysis analysis = new CorpusAnalysis(model, new HeadClassifier(), batch);
      analysis.run(corpus, CorpusAnalysis.Progress.NONE, () -> false); // warm-up
      List<Double> whole = new ArrayList<>();
      List<Double> forward = new ArrayList<>();
      List<Double> classify = new ArrayList<>();
      for (int r = 0; r < runs; r++) {
        long t0 = System.nanoTime();
        analysis.run(corpus, CorpusAnalysis.Progress.NONE, () -> false);
        whole.add((System.nanoTime() - t0) / 1e9);
        double[] parts = parts(model, corpus, batch);
        forward.add(parts[0]);
        classify.add(parts[1]);
      }
      double w = median(whole);
      System.out.printf(Locale.ROOT, "classify corpus: %.2f s, %.1f inputs/s (runs from %.2f to %.2f s)%n", w, n / w,
          Collections.min(whole), Collections.max(whole));
      System.out.printf(Locale.ROOT, "  of which forward passes (trace, batched): %.2f s%n", median(forward));
      System.out.printf(Locale.ROOT, "  of which classifier (144 maps per input): %.2f s%n", median(classify));
      // the machine is shared: a load well above the core count means the figures are slowed by others
      System.out.printf(Locale.ROOT, "load average at the end: %.2f%n", load());
      // the goal, 50 inputs per second, as the peer
      BenchJson.add("classify corpus, " + n + " inputs, batch " + batch, w * 1000, "goal: 50 inputs/s", n / 50.0 * 1000);
      BenchJson.add("classify corpus: forward passes (trace, batched)", median(forward) * 1000);
      BenchJson.add("classify corpus: classifier (144 maps per input)", median(classify) * 1000);
    }
    BenchJson.write();
  }

  /** Seconds in the forward passes and in the classifier, measured apart. */
  static double[] parts(BertModel model, Corpus corpus, int batch) {
    List<Encoding> enc = new ArrayList<>(corpus.inputs().stream().map(i -> model.encode(i.a(), i.b())).toList());
    enc.sort(Comparator.comparingInt(Encoding::length));
    HeadClassifier c = new HeadClassifier();
    double fwd = 0;
    double cls = 0;
    for (int s = 0; s < enc.size(); s += batch) {
      long t0 = System.nanoTime();
      List<AttentionTrace> traces = model.trace(TraceRequest.of(enc.subList(s, Math.min(enc.size(), s + batch)))
          .top(1));
      long t1 = System.nanoTime();
      traces.forEach(c::classifyAll);
      long t2 = System.nanoTime();
      fwd += (t1 - t0) / 1e9;
      cls += (t2 - t1) / 1e9;
    }
    return new double[] {fwd, cls};
  }

  /** The system's one-minute load average (-1 where the platform has none). */
  static double load() {
    return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }

  static double median(List<Double> xs) {
    List<Double> s = new ArrayList<>(xs);
    s.sort(null);
    return s.get(s.size() / 2);
  }
}
