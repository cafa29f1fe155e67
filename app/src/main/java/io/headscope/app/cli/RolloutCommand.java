package io.headscope.app.cli;

import io.headscope.analysis.flow.AttentionFlow;
import io.headscope.analysis.flow.Rollout;
import io.headscope.analysis.flow.RolloutJson;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "rollout", mixinStandardHelpOptions = true,
    description = "Attention rollout (Abnar & Zuidema 2020) of every layer, and with --flow the attention flow into "
        + "the last layer's outputs, as JSON: tokens, ids, rollout[layer][j][i] (0-based layer = after layer 1; the "
        + "share of output j that comes from input i), flow[j][i] and flowNormalized[j][i]. With --disable, on the "
        + "maps as the model ran them.")
final class RolloutCommand implements Callable<Integer> {
  @Mixin TextOptions sentence;

  @Option(names = "--flow", description = "Also the attention flow (maximum flow through the layered graph).")
  boolean flow;

  @Option(names = "--disable", paramLabel = "HEADS", description = "Heads switched off first (5-4,8-10, a layer: 7 or L7, or a saved head set: @NAME).")
  String disable;

  @Option(names = "--mode", defaultValue = "zero", paramLabel = "zero|uniform", description = "How --disable switches off.")
  String mode;

  @Mixin JsonOutput output;

  @Mixin ModelOptions model;

  @Override
  public Integer call() {
    sentence.check();
    HeadMask.Mode m = UsageException.mode(mode);
    output.check();
    try (BertModel bert = model.open()) {
      Set<Head> off = UsageException.heads("--disable", disable, bert.config());
      AttentionTrace t = bert.trace(TraceRequest.of(bert.encode(sentence.text, sentence.pair))
          .mask(HeadMask.of(off, m)).top(1).maps(AttentionTrace.Maps.AS_RUN)).get(0);
      Warnings.truncation(t.encoding());
      double[][][] rollout = Rollout.of(t.attention());
      AttentionFlow f = flow ? AttentionFlow.of(t.attention()) : null;
      output.write(o -> RolloutJson.write(t, rollout, f, o));
    }
    return 0;
  }
}
