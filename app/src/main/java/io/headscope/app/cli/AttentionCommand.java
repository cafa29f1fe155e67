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
  @Mixin TextOptions sentence;

  @Option(names = "--out", paramLabel = "FILE", description = "Write the JSON here instead of stdout.")
  Path out;

  @Option(names = "--force", description = "Overwrite an existing --out file.")
  boolean force;

  @Mixin ModelOptions model;

  @Override
  public Integer call() {
    sentence.check();
    Output.checkWritable(out, force);
    try (BertModel m = model.open()) {
      AttentionTrace t = m.trace(m.encode(sentence.text, sentence.pair));
      Warnings.truncation(t.encoding());
      Output.write(out, force, o -> JsonExport.attention(t, o));
    }
    return 0;
  }
}
