package io.headscope.app.cli;

import io.headscope.analysis.circuits.HeadDetectors;
import io.headscope.analysis.circuits.HeadDetectors.Kind;
import io.headscope.model.BertModel;
import java.io.BufferedWriter;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "detect", mixinStandardHelpOptions = true,
    description = {"TransformerLens's head detector: every head's previous-token, duplicate-token and induction "
        + "score, sum(A * D) / sum(A) for the detection pattern D, on sequences of random tokens written twice "
        + "(the model's own special tokens around them), the mean over the sequences.",
        "CSV: layer,head,previous_token,duplicate_token,induction (1-based)."})
final class DetectCommand implements Callable<Integer> {
  @Option(names = "--length", defaultValue = "20", paramLabel = "N", description = "Random tokens per half (default 20).")
  int length;

  @Option(names = "--inputs", defaultValue = "8", paramLabel = "K", description = "Sequences averaged (default 8).")
  int inputs;

  @Option(names = "--seed", defaultValue = "0", paramLabel = "S", description = "The random tokens' seed (default 0).")
  long seed;

  @Mixin CsvOutput output;

  @Mixin ModelOptions model;

  @Override
  public Integer call() {
    if (length < 2 || inputs < 1) {
      throw new UsageException("--length must be 2 or more and --inputs 1 or more.");
    }
    output.check();
    try (BertModel bert = model.open()) {
      HeadDetectors.Result r = HeadDetectors.detect(bert, length, inputs, seed);
      output.write(o -> {
        BufferedWriter w = new BufferedWriter(new OutputStreamWriter(o, StandardCharsets.UTF_8));
        w.write("layer,head,previous_token,duplicate_token,induction\n");
        for (int l = 0; l < r.layers(); l++) {
          for (int h = 0; h < r.heads(); h++) {
            w.write(String.format(Locale.ROOT, "%d,%d,%.6f,%.6f,%.6f\n", l + 1, h + 1, r.score(Kind.PREVIOUS_TOKEN, l, h),
                r.score(Kind.DUPLICATE_TOKEN, l, h), r.score(Kind.INDUCTION, l, h)));
          }
        }
        w.flush();
      });
      if (output.out != null) {
        System.err.println("headscope: wrote " + output.out);
      }
      for (Kind k : Kind.values()) {
        int bl = 0;
        int bh = 0;
        for (int l = 0; l < r.layers(); l++) {
          for (int h = 0; h < r.heads(); h++) {
            if (r.score(k, l, h) > r.score(k, bl, bh)) {
              bl = l;
              bh = h;
            }
          }
        }
        System.err.printf(Locale.ROOT, "headscope: %s: highest %d-%d (%.3f)%n", k.column(), bl + 1, bh + 1,
            r.score(k, bl, bh));
      }
    }
    return 0;
  }
}
