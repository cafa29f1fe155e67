package io.headscope.analysis.circuits;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * The CSVs of {@code edges} and {@code circuit}. Edges: {@code sender,receiver,input,score}, the largest |score|
 * first, nodes as {@link CircuitNode#label()} writes them ({@code embed}, {@code 3-5} 1-based, {@code mlp3},
 * {@code logits}) and the receiver's input {@code q|k|v|mlp|logits}. Checks: {@code
 * sender,receiver,input,estimate,exact}. Faithfulness: {@code edges,metric,kept}.
 */
public final class EdgeCsv {
  private EdgeCsv() {}

  /** What a CSV writes, to a writer. */
  private interface Body {
    void write(Writer w) throws IOException;
  }

  /** Writes to {@code out} and flushes it, leaving it open. */
  private static void to(OutputStream out, Body b) throws IOException {
    BufferedWriter w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8));
    b.write(w);
    w.flush();
  }

  public static void write(EdgeScores s, int top, OutputStream out) throws IOException {
    to(out, w -> write(s, top, w));
  }

  public static void writeChecks(List<EdgeCheck> checks, OutputStream out) throws IOException {
    to(out, w -> writeChecks(checks, w));
  }

  public static void writeFaithfulness(Faithfulness f, OutputStream out) throws IOException {
    to(out, w -> writeFaithfulness(f, w));
  }

  /** The {@code top} edges of largest |score| (all of them when {@code top} is 0 or more than there are). */
  public static void write(EdgeScores s, int top, Writer out) throws IOException {
    out.write("sender,receiver,input,score\n");
    int n = top <= 0 ? s.edges().size() : Math.min(top, s.edges().size());
    for (int i : s.top(n)) {
      CircuitEdge e = s.edges().get(i);
      out.write(e.sender().label() + "," + e.receiver().label() + "," + e.input().label() + "," + num(s.score(i)) + "\n");
    }
  }

  public static void writeChecks(List<EdgeCheck> checks, Writer out) throws IOException {
    out.write("sender,receiver,input,estimate,exact\n");
    for (EdgeCheck c : checks) {
      CircuitEdge e = c.edge();
      out.write(e.sender().label() + "," + e.receiver().label() + "," + e.input().label() + "," + num(c.estimate()) + ","
          + num(c.exact()) + "\n");
    }
  }

  public static void writeFaithfulness(Faithfulness f, Writer out) throws IOException {
    out.write("edges,metric,kept\n");
    for (Faithfulness.Point p : f.points()) {
      out.write(p.edges() + "," + num(p.metric()) + "," + num(p.kept()) + "\n");
    }
  }

  private static String num(double v) {
    return String.format(Locale.ROOT, "%.6g", v);
  }
}
