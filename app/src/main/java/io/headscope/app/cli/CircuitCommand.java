package io.headscope.app.cli;

import io.headscope.analysis.circuits.EdgeAnalysis;
import io.headscope.analysis.circuits.EdgeCsv;
import io.headscope.analysis.circuits.EdgeScores;
import io.headscope.analysis.circuits.Faithfulness;
import io.headscope.model.BertModel;
import io.headscope.model.store.AtomicOutput;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "circuit", mixinStandardHelpOptions = true,
    description = {"A circuit as the top-N edges by |score| (--method eap or eap-ig, see edges) and its "
        + "faithfulness: the metric when every edge outside the circuit carries the ablated value, each N run "
        + "exactly; kept = (metric - empty) / (clean - empty), empty the metric with every edge ablated. The --check "
        + "K edges of largest |score| are also patched exactly one by one, with the estimates' Spearman rank "
        + "correlation against them.",
        "CSV: edges,metric,kept. With --checks-out FILE: sender,receiver,input,estimate,exact. Ctrl-C cancels and "
            + "writes nothing."})
final class CircuitCommand implements Callable<Integer> {
  @Mixin EdgeOptions edge;

  @Option(names = "--faithfulness", defaultValue = "10,30,100,300,1000", paramLabel = "N1,N2,...", description =
      "Circuit sizes to run (default 10,30,100,300,1000).")
  String sizes;

  @Option(names = "--check", defaultValue = "20", paramLabel = "K", description = "Edges patched exactly one by one "
      + "(default 20; 0: none).")
  int check;

  // a String, not a Path: typed Paths are the run's inputs, which no output may replace (InputFiles)
  @Option(names = "--checks-out", paramLabel = "FILE", description = "Write the checked edges here.")
  String checksOutName;

  Path checksOut;

  @Mixin CsvOutput output;

  @Mixin ModelOptions model;

  @Override
  public Integer call() {
    edge.check();
    if (edge.method().equals("exact")) {
      throw new UsageException("circuit ranks every edge: --method eap or eap-ig (exact patches the --check edges).");
    }
    int[] n = parseSizes(sizes);
    if (check < 0 || check > 1000) {
      throw new UsageException("--check must be between 0 and 1000, got " + check + ".");
    }
    checksOut = checksOutName == null ? null : Path.of(checksOutName);
    output.check();
    if (checksOut != null) {
      Output.checkWritable(checksOut, output.force);
    }
    try (BertModel bert = model.open();
        Cancellation cancel = Cancellation.onCtrlC()) {
      EdgeAnalysis a = edge.open(bert);
      long start = System.nanoTime();
      Faithfulness f;
      try {
        EdgeScores s = edge.method().equals("eap") ? a.eap() : a.eapIg(edge.steps);
        f = a.faithfulness(s, n, check, cancel::requested);
      } catch (CancellationException e) {
        return Cancellation.cancelled();
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      if (output.out == null) {
        output.write(o -> EdgeCsv.writeFaithfulness(f, o));
        if (checksOut != null) {
          AtomicOutput.writeSet(List.of(new AtomicOutput.Member(checksOut, o -> EdgeCsv.writeChecks(f.checks(), o))),
              output.force);
        }
      } else {
        List<AtomicOutput.Member> members = new ArrayList<>();
        members.add(new AtomicOutput.Member(output.out, o -> EdgeCsv.writeFaithfulness(f, o)));
        if (checksOut != null) {
          members.add(new AtomicOutput.Member(checksOut, o -> EdgeCsv.writeChecks(f.checks(), o)));
        }
        AtomicOutput.writeSet(members, output.force);
        System.err.println("headscope: wrote " + output.out);
      }
      if (checksOut != null) {
        System.err.println("headscope: wrote " + checksOut);
      }
      System.err.printf(Locale.ROOT, "headscope: %s %s, %s ablation: clean %.4f, every edge ablated %.4f; took %.2f s%n",
          f.method(), f.metric(), f.ablation().label(), f.full(), f.empty(), seconds);
      for (Faithfulness.Point p : f.points()) {
        System.err.printf(Locale.ROOT, "headscope: top %d edges keep %.4f (metric %.4f)%n", p.edges(), p.kept(),
            p.metric());
      }
      System.err.printf(Locale.ROOT, "headscope: Spearman of %s against exact edge patching over the top %d: %.3f%n",
          f.method(), f.checks().size(), f.spearman());
    }
    return 0;
  }

  static int[] parseSizes(String s) {
    String[] parts = s.split(",");
    int[] out = new int[parts.length];
    for (int i = 0; i < parts.length; i++) {
      try {
        out[i] = Integer.parseInt(parts[i].trim());
      } catch (NumberFormatException e) {
        throw new UsageException("--faithfulness: \"" + parts[i].trim() + "\" is not a number of edges (e.g. 10,100,1000).");
      }
      if (out[i] < 0) {
        throw new UsageException("--faithfulness: sizes are 0 or more, got " + out[i] + ".");
      }
    }
    return out;
  }
}
