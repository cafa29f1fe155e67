package io.headscope.analysis.ablation;

import io.headscope.analysis.ablation.AblationResult;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/**
 * {@code ablation.csv} and {@code importance.csv}. Layers and heads are 1-based; a whole-layer row
 * of the sweep has {@code *} as its head. Log-probabilities are natural logs; {@code acc} is a share
 * in [0,1]; deltas are ablated minus intact.
 */
public final class AblationCsv {
  public static final String[] ABLATION_HEADER = {"layer", "head", "baseline_logprob", "ablated_logprob",
      "delta_logprob", "baseline_acc", "ablated_acc", "delta_acc"};
  public static final String[] IMPORTANCE_HEADER = {"layer", "head", "importance", "importance_normalized",
      "rank", "sweep_delta_logprob"};

  private AblationCsv() {}

  public static void ablation(AblationTable t, OutputStream out) throws IOException {
    try (CSVPrinter p = printer(out, ablationHeader(t.result().metric()))) {
      for (AblationTable.Row r : t.rows()) {
        p.printRecord(r.layer(), r.wholeLayer() ? "*" : String.valueOf(r.head()), num(r.baselineLogprob()),
            num(r.ablatedLogprob()), num(r.deltaLogprob()), num(r.baselineAcc()), num(r.ablatedAcc()),
            num(r.deltaAcc()));
      }
    }
  }

  /**
   * The sweep's header for a metric: {@link #ABLATION_HEADER} for the default {@code logprob}, else
   * the same with {@code logprob} replaced by the metric's name ({@code baseline_logit_diff}, ...).
   */
  public static String[] ablationHeader(String metric) {
    String[] h = ABLATION_HEADER.clone();
    for (int i = 0; i < h.length; i++) {
      h[i] = h[i].replace("logprob", metric);
    }
    return h;
  }

  /**
   * The sidecar of a sweep's CSV ({@code ablation.csv.json}): what the numbers were measured on, so
   * a file read months later says its model, input, mode and metric without changing the CSV's header.
   */
  public static void metadata(AblationResult r, Sweep about, OutputStream out) throws IOException {
    com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
    java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
    m.put("model", about.model());
    m.put("text", about.text());
    m.put("pair", about.pair());
    m.put("corpus", about.corpus());
    m.put("inputs", r.inputs());
    m.put("positions", r.positions());
    m.put("mode", r.mode().name().toLowerCase(Locale.ROOT));
    m.put("metric", r.metric());
    m.put("target", about.target());
    m.put("contrast", about.contrast());
    m.put("layers", r.hasLayers());
    m.put("seed", about.seed());
    m.put("partial", about.partial());
    json.writerWithDefaultPrettyPrinter().writeValue(new java.io.FilterOutputStream(out) {
      @Override
      public void close() throws IOException {
        flush(); // the caller owns the stream
      }
    }, m);
  }

  /**
   * What a sweep ran on, for {@link #metadata}.
   *
   * @param text the typed input, or null for a corpus
   * @param corpus the corpus file, or null
   * @param target the target token, or null for the default measure
   * @param partial whether the sweep was cancelled part-way (the CSV then holds the layers done)
   */
  public record Sweep(String model, String text, String pair, String corpus, String target, String contrast, long seed,
      boolean partial) {}

  /** {@code sweep_delta_logprob} is empty when no sweep was run. */
  public static void importance(ImportanceTable t, OutputStream out) throws IOException {
    try (CSVPrinter p = printer(out, IMPORTANCE_HEADER)) {
      for (ImportanceTable.Row r : t.rows()) {
        p.printRecord(r.layer(), r.head(), num(r.importance()), num(r.normalized()), r.rank(),
            Double.isNaN(r.sweepDeltaLogprob()) ? "" : num(r.sweepDeltaLogprob()));
      }
    }
  }

  private static CSVPrinter printer(OutputStream out, String[] header) throws IOException {
    Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
    return new CSVPrinter(w, CSVFormat.DEFAULT.builder().setHeader(header).setRecordSeparator('\n').get());
  }

  /** Eight significant digits: far below the sweep's float32 noise, short enough to read. */
  static String num(double v) {
    return String.format(Locale.ROOT, "%.8g", v);
  }
}
