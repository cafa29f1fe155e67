package io.headscope.analysis.compare;

import io.headscope.model.store.SafeFiles;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The {@code compare} CSV, written alike by the CLI and the app: each layer's heads (1-based), then that
 * layer's row with head {@code *} (the means over its heads; the category columns empty). Cosine with six
 * decimals as the classify CSV; the divergence in nats with nine, as head-distances (it is often tiny).
 */
public final class CompareCsv {
  public static final List<String> HEADER =
      List.of("layer", "head", "cosine", "js_divergence", "category_a", "category_b", "inputs");

  private CompareCsv() {}

  /** Writes {@code file} atomically; refuses an existing file unless {@code overwrite}. */
  public static void write(Path file, boolean overwrite, ComparisonResult r) {
    SafeFiles.writeAtomically(file, overwrite, out -> write(r, out));
  }

  public static void write(ComparisonResult r, OutputStream out) throws IOException {
    BufferedWriter w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8));
    w.write(String.join(",", HEADER));
    w.write('\n');
    for (LayerComparison layer : r.perLayer()) {
      for (int h = 0; h < r.heads(); h++) {
        HeadComparison c = r.perHead().get(layer.layer() * r.heads() + h);
        w.write(String.format(Locale.ROOT, "%d,%d,%.6f,%.9f,%s,%s,%d\n", layer.layer() + 1, h + 1, c.cosine(),
            c.jsDivergence(), c.categoryA().label(), c.categoryB().label(), c.inputs()));
      }
      w.write(String.format(Locale.ROOT, "%d,*,%.6f,%.9f,,,%d\n", layer.layer() + 1, layer.cosine(),
          layer.jsDivergence(), layer.inputs()));
    }
    w.flush();
  }
}
