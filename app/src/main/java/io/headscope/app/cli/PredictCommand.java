package io.headscope.app.cli;

import io.headscope.analysis.export.EncoderDecoderJson;
import io.headscope.analysis.export.JsonExport;
import io.headscope.model.EncoderDecoderModel;
import io.headscope.model.EncoderDecoderTrace;
import io.headscope.analysis.favor.FavorHeads;
import io.headscope.analysis.favor.RandomFeatures;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.tokenizer.Encoding;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "predict", mixinStandardHelpOptions = true,
    description = "Masked-LM predictions at every [MASK], optionally with heads switched off or on FAVOR+ "
        + "(then also the intact model's predictions and what changed). An encoder-decoder (T5, BART): --text "
        + "SOURCE --target TARGET gives the next target token at every target position.")
final class PredictCommand implements Callable<Integer> {
  @Mixin TextOptions sentence;

  @Option(names = "--disable", paramLabel = "HEADS",
      description = "Heads to switch off, 1-based layer-head, comma-separated: 5-4,8-10; 7, 7-* or L7 is all of layer 7; @NAME is a head set saved from the app (README: Head sets).")
  String disable;

  @Option(names = "--mode", defaultValue = "zero", paramLabel = "zero|uniform",
      description = "zero: multiply the head's attention by 0; uniform: spread it evenly over the tokens.")
  String mode;

  @Option(names = "--favor", paramLabel = "HEADS",
      description = "Heads to run on FAVOR+ (Performer's linear attention) instead of softmax, written as for "
          + "--disable; the JSON then compares with the intact model as for --disable.")
  String favor;

  @Option(names = "--favor-features", defaultValue = "64", paramLabel = "M",
      description = "Random features m for --favor (default 64).")
  int favorFeatures;

  @Option(names = "--favor-kind", defaultValue = "orf", paramLabel = "orf|iid",
      description = "Orthogonal (default) or iid random features for --favor.")
  String favorKind;

  @Option(names = "--seed", defaultValue = "0", paramLabel = "N",
      description = "Seed family of the FAVOR+ features (default 0, as the favor command and the app).")
  long seed;

  @Option(names = "--top", defaultValue = "5", paramLabel = "K", description = "How many tokens to list (default 5).")
  int top;

  @Mixin JsonOutput output;

  @Mixin ModelOptions model;

  @Mixin EncoderDecoderOptions twoStacks;

  @Override
  public Integer call() {
    sentence.check();
    output.check();
    if (top < 1 || top > 1000) {
      throw new UsageException("--top must be between 1 and 1000, got " + top + ".");
    }
    HeadMask.Mode m = UsageException.mode(mode);
    if (favorFeatures < 1 || favorFeatures > 100_000) {
      throw new UsageException("--favor-features must be between 1 and 100000, got " + favorFeatures + ".");
    }
    RandomFeatures.Kind kind = switch (favorKind.toLowerCase(Locale.ROOT)) {
      case "orf" -> RandomFeatures.Kind.ORF;
      case "iid" -> RandomFeatures.Kind.IID;
      default -> throw new UsageException("--favor-kind must be orf or iid, got \"" + favorKind + "\".");
    };
    twoStacks.check();
    if (twoStacks.given()) {
      if (sentence.pair != null || disable != null || favor != null) {
        throw new UsageException("--target (an encoder-decoder's source and target) goes without --pair, --disable "
            + "and --favor: switch heads off with --disable-encoder, --disable-decoder and --disable-cross.");
      }
      try (EncoderDecoderModel ed = twoStacks.open(model)) {
        io.headscope.model.core.EncoderDecoderMask mask = twoStacks.mask(ed.config(), m);
        EncoderDecoderTrace run = ed.trace(sentence.text, twoStacks.target, mask, top);
        Warnings.truncation(run.source());
        Warnings.truncation(run.target());
        EncoderDecoderTrace intact = mask.isEmpty() ? run
            : ed.trace(sentence.text, twoStacks.target, io.headscope.model.core.EncoderDecoderMask.NONE, top);
        output.write(o -> EncoderDecoderJson.predictions(run, intact, o));
      }
      return 0;
    }
    try (BertModel bert = model.open()) {
      Set<Head> off = UsageException.heads("--disable", disable, bert.config());
      if (!bert.hasMaskedLmHead() && !bert.hasClassifier()) {
        throw new HeadScopeException(bert.unreadClassifier().map(why -> why + "; it has no masked-LM head either: "
            + "nothing to predict.").orElse(bert.name() + " has no masked-LM head (a bare model): nothing to predict."));
      }
      Encoding input = bert.encode(sentence.text, sentence.pair);
      Warnings.truncation(input);
      // a causal model (GPT-2) predicts the token after the text; a masked one needs a mask to fill
      if (bert.hasMaskedLmHead() && bert.config().family().masked()
          && java.util.Arrays.stream(input.ids()).noneMatch(id -> id == bert.tokenizer().maskId())
          && !bert.hasClassifier()) {
        String mask = bert.tokenizer().vocabToken(bert.tokenizer().maskId()).strip(); // [MASK], <mask>, ...
        throw new HeadScopeException(input.wasTruncated() && (sentence.text + " " + sentence.pair).contains(mask)
            ? "Every " + mask + " lies beyond the model's " + input.length() + " positions and was cut off: "
                + "shorten the text or move the " + mask + " nearer the start."
            : "The text has no " + mask + " to predict: put " + mask + " where a word should be guessed.");
      }
      FavorHeads onFavor = new FavorHeads(UsageException.heads("--favor", favor, bert.config()), favorFeatures,
          kind, seed, 0);
      AttentionTrace intact = bert.trace(TraceRequest.of(input).top(top)).get(0);
      AttentionTrace ablated = off.isEmpty() && onFavor.isEmpty() ? intact
          : bert.trace(TraceRequest.of(input).mask(HeadMask.of(off, m)).top(top).maps(AttentionTrace.Maps.AS_RUN)
              .adjust(r -> onFavor.applyTo(bert, r))).get(0);
      output.write(o -> JsonExport.predictions(intact, ablated, onFavor, bert.classLabels(), o));
    }
    return 0;
  }
}
