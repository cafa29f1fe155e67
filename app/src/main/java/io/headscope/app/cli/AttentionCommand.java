package io.headscope.app.cli;

import io.headscope.analysis.export.JsonExport;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "attention", mixinStandardHelpOptions = true,
    description = "Every head's attention map and value-vector norms for one input, as JSON "
        + "(attention[layer][head][query][key], valueNorms[layer][head][token]; 0-based).")
final class AttentionCommand implements Callable<Integer> {
  @Option(names = "--text", required = true, paramLabel = "TEXT", description = "The sentence (segment a).")
  String text;

  @Option(names = "--pair", paramLabel = "TEXT", description = "A second sentence (segment b).")
  String pair;

  @Option(names = "--out", paramLabel = "FILE", description = "Write the JSON here instead of stdout.")
  Path out;

  @Option(names = "--force", description = "Overwrite an existing --out file.")
  boolean force;

  @Mixin ModelOptions model;

  @Override
  public Integer call() {
    ModelOptions.requireText(text, "--text");
    if (pair != null) {
      ModelOptions.requireText(pair, "--pair");
    }
    try (BertModel m = model.open()) {
      AttentionTrace t = m.trace(m.encode(text, pair));
      Warnings.truncation(t.encoding());
      Output.write(out, force, o -> JsonExport.attention(t, o));
    }
    return 0;
  }
}
