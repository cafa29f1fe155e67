package io.headscope.analysis.ablation;

import io.headscope.model.core.Head;
import io.headscope.analysis.ablation.Pruning;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.stream.Collectors;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/**
 * {@code prune.csv}: one row per step from 0 (nothing pruned). {@code share_pruned} is heads_pruned over
 * all heads; {@code metric} is accuracy (labelled corpus) or the masked-LM mean log-probability (text);
 * {@code pruned_heads} lists every head off at that step in the order they were pruned, 1-based
 * {@code layer-head} separated by spaces (no comma or quote, so the field is never quoted; replace the
 * spaces by commas for {@code --disable}).
 */
public final class PruneCsv {
  public static final String[] HEADER = {"step", "heads_pruned", "share_pruned", "metric", "pruned_heads"};

  private PruneCsv() {}

  public static void write(Pruning.Curve c, OutputStream out) throws IOException {
    Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
    try (CSVPrinter p = new CSVPrinter(w, CSVFormat.DEFAULT.builder().setHeader(HEADER).setRecordSeparator('\n')
        .get())) {
      for (Pruning.Step s : c.steps()) {
        p.printRecord(s.step(), s.headsPruned(), AblationCsv.num(s.sharePruned()), AblationCsv.num(s.metric()),
            heads(s));
      }
    }
  }

  /** The pruned heads as written in the CSV. */
  public static String heads(Pruning.Step s) {
    return s.pruned().stream().map(Head::toString).collect(Collectors.joining(" "));
  }
}
