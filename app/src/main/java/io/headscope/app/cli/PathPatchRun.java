package io.headscope.app.cli;

import io.headscope.analysis.causal.PatchDirection;
import io.headscope.analysis.causal.PatchInputs;
import io.headscope.analysis.causal.PatchJson;
import io.headscope.analysis.causal.PatchMetric;
import io.headscope.analysis.causal.PathPatchCsv;
import io.headscope.analysis.causal.PathPatchJson;
import io.headscope.analysis.causal.PathPatchResult;
import io.headscope.analysis.causal.PathPatching;
import io.headscope.analysis.causal.PathReceiver;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.store.AtomicOutput;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CancellationException;

/**
 * {@code patch --by path --receivers ...}: path patching from every sender head into the receivers, written as
 * {@code layer,head,patched,recovered} (and the JSON beside it), kept apart from {@link PatchCommand}'s
 * activation patching.
 */
final class PathPatchRun {
  private PathPatchRun() {}

  static int run(PatchCommand c, BertModel bert, PatchMetric m, PatchDirection d, Cancellation cancel) {
    List<PathReceiver> receivers;
    try {
      receivers = PathReceiver.parse(c.receivers, bert.config());
    } catch (HeadScopeException e) {
      throw new UsageException(e.getMessage(), e);
    }
    PatchInputs in = PatchInputs.of(bert, c.clean, c.corrupted);
    long start = System.nanoTime();
    PathPatchResult r;
    try (ProgressDisplay progress = ProgressDisplay.start("patch")) {
      r = new PathPatching(bert).run(in, m, receivers, d, progress, cancel::requested);
    } catch (CancellationException e) {
      return Cancellation.cancelled();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    if (c.output.out == null) {
      c.output.write(o -> PathPatchCsv.write(r, o));
    } else {
      PatchJson.About about = new PatchJson.About(bert.name(), c.clean, c.corrupted, c.target, c.contrast, "path");
      AtomicOutput.writeSet(List.of(new AtomicOutput.Member(c.output.out, o -> PathPatchCsv.write(r, o)),
          new AtomicOutput.Member(AblateCommand.sidecar(c.output.out), o -> PathPatchJson.write(r, in, m, about, o))),
          c.output.force);
      System.err.println("headscope: wrote " + c.output.out);
      System.err.println("headscope: wrote " + AblateCommand.sidecar(c.output.out));
    }
    int bl = 0;
    int bh = 0;
    boolean denoise = d == PatchDirection.DENOISE;
    for (int l = 0; l < r.senderLayers(); l++) {
      for (int h = 0; h < r.heads(); h++) {
        if (denoise ? r.recovered(l, h) > r.recovered(bl, bh) : r.recovered(l, h) < r.recovered(bl, bh)) {
          bl = l;
          bh = h;
        }
      }
    }
    System.err.printf(Locale.ROOT, "headscope: %s %s: clean %.4f, corrupted %.4f; path patching of %d senders into %s "
        + "took %.2f s%n", r.metric(), d.label(), r.clean(), r.corrupted(), r.senderLayers() * r.heads(),
        String.join(",", receivers.stream().map(PathReceiver::label).toList()), seconds);
    System.err.printf(Locale.ROOT, "headscope: path: %s at head %d-%d: recovered %.4f%n",
        denoise ? "restores most" : "necessary most", bl + 1, bh + 1, r.recovered(bl, bh));
    return 0;
  }
}
