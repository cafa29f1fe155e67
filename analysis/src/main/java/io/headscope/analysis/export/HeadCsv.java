package io.headscope.analysis.export;

import io.headscope.analysis.heads.HeadPattern;
import io.headscope.analysis.heads.HeadStats;
import io.headscope.analysis.heads.HeadSummary;
import io.headscope.analysis.heads.TokenType;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.store.SafeFiles;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;
import org.apache.commons.csv.CSVRecord;

/**
 * The {@code classify} CSV: one row per head, layer by layer. The header is part of the interface
 * (documented in the README); new columns go at the end, never between.
 *
 * <p>{@code category} is {@code uncertain} where the learned model's top probability is under {@link
 * io.headscope.analysis.heads.LearnedRule#UNCERTAIN_BELOW}; {@code likeliest} always holds the top
 * category and {@code runner_up} the second (empty under the rule, which ranks no other).
 */
public final class HeadCsv {
  /** The header, in order. {@code layer} and {@code head} are 1-based. */
  public static final List<String> HEADER = List.of(
      "layer", "head", "category", "confidence", "vertical", "diagonal", "block", "heterogeneous",
      "share_vertical", "share_diagonal", "share_vertical_diagonal", "share_block", "share_heterogeneous",
      "majority", "top_types", "top_tokens",
      "entropy", "previous", "next", "self",
      "cls", "sep", "punct", "other", "norm_cls", "norm_sep", "norm_punct", "norm_other",
      "mean_value_norm", "inputs", "vertical_focus", "likeliest", "runner_up", "runner_up_confidence");

  /** The header before the uncertain category (issue 32): still read, so older files merge and reopen. */
  static final List<String> HEADER_BEFORE_UNCERTAIN = HEADER.subList(0, HEADER.indexOf("likeliest"));

  private static final CSVFormat FORMAT = CSVFormat.DEFAULT.builder()
      .setHeader(HEADER.toArray(String[]::new)).setRecordSeparator("\n").get();

  private HeadCsv() {}

  /** Writes {@code file} atomically; refuses an existing file unless {@code overwrite}. */
  public static void write(Path file, boolean overwrite, List<HeadSummary> heads) {
    SafeFiles.writeAtomically(file, overwrite, out -> write(heads, out));
  }

  public static void write(List<HeadSummary> heads, OutputStream out) throws IOException {
    Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
    CSVPrinter p = new CSVPrinter(w, FORMAT);
    for (HeadSummary h : heads) {
      HeadStats s = h.stats();
      List<Object> row = new ArrayList<>(HEADER.size());
      row.add(h.head().layer() + 1);
      row.add(h.head().head() + 1);
      row.add(h.shownLabel());
      row.addAll(nums(h.confidence(), h.vertical(), h.diagonal(), h.block(), h.heterogeneous()));
      for (HeadPattern c : HeadPattern.values()) {
        row.add(num(h.share(c)));
      }
      row.add(h.majority().label());
      row.add(String.join(" ", h.topTypes().stream().map(TokenType::columnName).toList()));
      row.add(String.join(" ", h.topTokens()));
      row.addAll(nums(s.entropy(), s.previous(), s.next(), s.self(), s.cls(), s.sep(), s.punct(), s.other(),
          s.normCls(), s.normSep(), s.normPunct(), s.normOther(), s.meanValueNorm()));
      row.add(h.inputs());
      row.add(num(h.verticalFocus()));
      row.add(h.category().label());
      row.add(h.runnerUp() == null ? "" : h.runnerUp().label());
      row.add(h.runnerUp() == null ? "" : num(h.runnerUpConfidence()));
      p.printRecord(row);
    }
    p.flush();
  }

  /** Reads a file written by {@link #write}; checks the header. */
  public static List<HeadSummary> read(Reader in, String name) throws IOException {
    List<HeadSummary> out = new ArrayList<>();
    var parser = CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).get().parse(in);
    boolean before = parser.getHeaderNames().equals(HEADER_BEFORE_UNCERTAIN);
    if (!before && !parser.getHeaderNames().equals(HEADER)) {
      throw new HeadScopeException(name + " is not a HeadScope classify CSV: its header is "
          + parser.getHeaderNames() + ".");
    }
    for (CSVRecord r : parser) {
      Map<HeadPattern, Double> shares = new EnumMap<>(HeadPattern.class);
      for (HeadPattern c : HeadPattern.values()) {
        shares.put(c, d(r, "share_" + c.columnName()));
      }
      HeadStats s = new HeadStats(d(r, "entropy"), d(r, "previous"), d(r, "next"), d(r, "self"),
          d(r, "cls"), d(r, "sep"), d(r, "punct"), d(r, "other"), d(r, "mean_value_norm"),
          d(r, "norm_cls"), d(r, "norm_sep"), d(r, "norm_punct"), d(r, "norm_other"));
      String tokens = r.get("top_tokens");
      boolean uncertain = r.get("category").equals(HeadPattern.UNCERTAIN_LABEL);
      HeadPattern category = HeadPattern.parse(before ? r.get("category") : r.get("likeliest"));
      String runnerUp = before ? "" : r.get("runner_up");
      out.add(new HeadSummary(new Head(Integer.parseInt(r.get("layer")) - 1, Integer.parseInt(r.get("head")) - 1),
          Integer.parseInt(r.get("inputs")), category, d(r, "confidence"),
          d(r, "vertical"), d(r, "vertical_focus"), d(r, "diagonal"), d(r, "block"), d(r, "heterogeneous"), shares,
          HeadPattern.parse(r.get("majority")),
          tokens.isEmpty() ? List.of() : Arrays.asList(tokens.split(" ")), s,
          runnerUp.isEmpty() ? null : HeadPattern.parse(runnerUp), runnerUp.isEmpty() ? 0 : d(r, "runner_up_confidence"),
          uncertain));
    }
    return out;
  }

  static List<String> nums(double... xs) {
    List<String> out = new ArrayList<>(xs.length);
    for (double x : xs) {
      out.add(num(x));
    }
    return out;
  }

  /** Six decimals, a dot whatever the locale: enough for shares, stable for diffs. */
  static String num(double x) {
    return String.format(Locale.ROOT, "%.6f", x);
  }

  private static double d(CSVRecord r, String column) {
    return Double.parseDouble(r.get(column));
  }
}
