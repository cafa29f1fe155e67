package io.headscope.app.cli;

import io.headscope.analysis.export.JsonExport;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.Head;
import io.headscope.model.HeadMask;
import io.headscope.model.HeadScopeException;
import io.headscope.model.tokenizer.Encoding;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "predict", mixinStandardHelpOptions = true,
    description = "Masked-LM predictions at every [MASK], optionally with heads switched off "
        + "(then also the intact model's predictions and what changed).")
final class PredictCommand implements Callable<Integer> {
  @Mixin TextOptions sentence;

  @Option(names = "--disable", paramLabel = "HEADS",
      description = "Heads to switch off, 1-based layer-head, comma-separated: 5-4,8-10; 7 or 7-* is all of layer 7.")
  String disable;

  @Option(names = "--mode", defaultValue = "zero", paramLabel = "zero|uniform",
      description = "zero: multiply the head's attention by 0; uniform: spread it evenly over the tokens.")
  String mode;

  @Option(names = "--top", defaultValue = "5", paramLabel = "K", description = "How many tokens to list (default 5).")
  int top;

  @Mixin JsonOutput output;

  @Mixin ModelOptions model;

  @Override
  public Integer call() {
    sentence.check();
    output.check();
    if (top < 1 || top > 1000) {
      throw new UsageException("--top must be between 1 and 1000, got " + top + ".");
    }
    HeadMask.Mode m = UsageException.mode(mode);
    try (BertModel bert = model.open()) {
      Set<Head> off = UsageException.heads("--disable", disable, bert.config());
      if (!bert.hasMaskedLmHead() && !bert.hasClassifier()) {
        throw new HeadScopeException(bert.name() + " has no masked-LM head (a bare BertModel): nothing to predict.");
      }
      Encoding input = bert.encode(sentence.text, sentence.pair);
      Warnings.truncation(input);
      if (bert.hasMaskedLmHead()
          && java.util.Arrays.stream(input.ids()).noneMatch(id -> id == bert.tokenizer().maskId())
          && !bert.hasClassifier()) {
        throw new HeadScopeException(input.wasTruncated() && (sentence.text + " " + sentence.pair).contains("[MASK]")
            ? "Every [MASK] lies beyond the model's " + input.length() + " positions and was cut off: "
                + "shorten the text or move the [MASK] nearer the start."
            : "The text has no [MASK] to predict: put [MASK] where a word should be guessed.");
      }
      AttentionTrace intact = bert.trace(input, HeadMask.NONE, top);
      AttentionTrace ablated = off.isEmpty() ? intact : bert.trace(input, HeadMask.of(off, m), top);
      output.write(o -> JsonExport.predictions(intact, ablated, bert.classLabels(), o));
    }
    return 0;
  }
}
