package io.headscope.app.cli;

import io.headscope.analysis.lens.DirectLogitAttribution;
import io.headscope.analysis.lens.DlaResult;
import io.headscope.analysis.lens.LensCsv;
import io.headscope.analysis.lens.LensResult;
import io.headscope.analysis.lens.LogitLens;
import io.headscope.model.BertModel;
import io.headscope.model.tokenizer.Encoding;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "lens", mixinStandardHelpOptions = true,
    description = {"The logit lens at every [MASK] (a causal model: the last token): the embeddings and each "
        + "layer's output read by the model's own output head. CSV: layer,point,position,token,target,target_rank,"
        + "target_prob,contrast,contrast_rank,contrast_prob,top_tokens,top_probs (layer 0 = embeddings, then 1-based; "
        + "lists separated by |). An --out ending in .json writes JSON.",
        "--dla (with --target): direct logit attribution of each head, attention bias, MLP and the embeddings. "
            + "GPT-2 (pre-LayerNorm): through ln_f with the full stream's scale frozen. BERT family (post-LayerNorm): "
            + "a frozen-scale linearisation, every LayerNorm's 1/sigma and the head's gelu(z)/z frozen at this run, "
            + "so the components plus a bias row sum to the logit exactly; an attribution, not the effect of "
            + "removing a head. A CSV then holds component,layer,head,position,token,target_logit,contrast_logit,"
            + "logit_diff,method, the JSON both."})
final class LensCommand implements Callable<Integer> {
  @Mixin TextOptions sentence;

  @Option(names = "--target", paramLabel = "WORD", description = "Follow this token's rank and probability (one token of the vocabulary).")
  String target;

  @Option(names = "--contrast", paramLabel = "WORD", description = "With --target: follow a second token too.")
  String contrast;

  @Option(names = "--top", defaultValue = "5", paramLabel = "K", description = "Tokens listed per layer (default 5).")
  int top;

  @Option(names = "--dla", description = "Direct logit attribution to --target (and --contrast) instead of the lens table.")
  boolean dla;

  @Mixin CsvOutput output;

  @Mixin ModelOptions model;

  @Override
  public Integer call() {
    sentence.check();
    output.check();
    if (top < 1 || top > 1000) {
      throw new UsageException("--top must be between 1 and 1000, got " + top + ".");
    }
    if (target == null && (contrast != null || dla)) {
      throw new UsageException("--contrast and --dla need --target.");
    }
    boolean json = output.out != null && output.out.toString().toLowerCase(java.util.Locale.ROOT).endsWith(".json");
    try (BertModel bert = model.open()) {
      Encoding input = bert.encode(sentence.text, sentence.pair);
      Warnings.truncation(input);
      long[] tc = bert.tokenizer().targetAndContrast(target, contrast);
      long t = tc[0];
      long c = tc[1];
      long started = System.nanoTime();
      DlaResult attribution = dla ? new DirectLogitAttribution(bert).run(input, t, c) : null;
      double seconds = (System.nanoTime() - started) / 1e9;
      LensResult lens = new LogitLens(bert).run(input, t, c, top);
      if (json) {
        output.write(o -> LensCsv.json(bert.name(), lens, attribution, bert.tokenizer()::vocabToken, o));
      } else if (dla) {
        output.write(o -> LensCsv.dla(attribution, o));
      } else {
        output.write(o -> LensCsv.lens(lens, bert.tokenizer()::vocabToken, o));
      }
      if (attribution != null) {
        System.err.println("direct logit attribution: " + attribution.method().description() + String.format(
            java.util.Locale.ROOT, ". It took %.2f s (one forward pass and the decomposition).", seconds));
        for (int i = 0; i < attribution.positions().length; i++) {
          int p = attribution.positions()[i];
          System.err.println("position " + p + ": components sum to " + (c < 0
              ? String.format(java.util.Locale.ROOT, "%.5f (the %s logit)", attribution.sum(p, false), target)
              : String.format(java.util.Locale.ROOT, "%.5f; the model's logit difference is %.5f%s",
                  attribution.sum(p, true), attribution.modelDifference()[i],
                  attribution.method() == DlaResult.Method.FINAL_SCALE_FROZEN
                      ? " (less (W_U[target] - W_U[contrast]) . beta of ln_f, which the attribution leaves out)"
                      : "")));
        }
      }
      if (t >= 0) {
        for (int p : lens.rows().stream().mapToInt(r -> r.position()).distinct().toArray()) {
          int first = lens.firstTopLayer(p);
          System.err.println("position " + p + ": " + target + (first < 0 ? " never reaches rank 1"
              : " first reaches rank 1 at " + (first == 0 ? "the embeddings" : "layer " + first)));
        }
      }
    }
    return 0;
  }
}
