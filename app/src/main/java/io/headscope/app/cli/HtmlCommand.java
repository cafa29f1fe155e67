package io.headscope.app.cli;

import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.app.render.page.InteractivePage;
import io.headscope.app.render.page.PageData;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "html", mixinStandardHelpOptions = true,
    description = "One self-contained HTML page for one input that opens offline in any browser: BertViz's head "
        + "view, every head as a thumbnail, the neuron view (q, k, q*k, q.k/sqrt(dh), softmax), each head's "
        + "category, and with --disable the predictions before -> after and the maps intact / as run / difference.")
final class HtmlCommand implements Callable<Integer> {
  @Mixin TextOptions sentence;

  @Option(names = "--disable", paramLabel = "HEADS",
      description = "Heads to switch off, 1-based layer-head, comma-separated: 5-4,8-10; 7 or 7-* is all of layer 7; "
          + "@NAME is a head set saved from the app (README: Head sets).")
  String disable;

  @Option(names = "--mode", defaultValue = "zero", paramLabel = "zero|uniform",
      description = "zero: multiply the head's attention by 0; uniform: spread it evenly over the tokens.")
  String mode;

  @Mixin HtmlOutput output;

  @Mixin ModelOptions model;

  @Override
  public Integer call() {
    sentence.check();
    output.check();
    HeadMask.Mode m = UsageException.mode(mode);
    try (BertModel bert = model.open()) {
      Set<Head> off = UsageException.heads("--disable", disable, bert.config());
      PageData d = PageData.build(bert, sentence.text, sentence.pair, HeadMask.of(off, m), new HeadClassifier());
      Warnings.truncation(d.intact().encoding());
      output.write(InteractivePage.content(d));
    }
    return 0;
  }
}
