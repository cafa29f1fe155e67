package io.headscope.app.cli;

import io.headscope.analysis.export.JsonExport;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "attention", mixinStandardHelpOptions = true,
    description = "Every head's attention map and value-vector norms for one input, as JSON "
        + "(attention[layer][head][query][key], valueNorms[layer][head][token]; 0-based).")
final class AttentionCommand implements Callable<Integer> {
  @Mixin TextOptions sentence;

  @Mixin JsonOutput output;

  @Mixin ModelOptions model;

  @Override
  public Integer call() {
    sentence.check();
    output.check();
    try (BertModel m = model.open()) {
      AttentionTrace t = m.trace(m.encode(sentence.text, sentence.pair));
      Warnings.truncation(t.encoding());
      output.write(o -> JsonExport.attention(t, o));
    }
    return 0;
  }
}
