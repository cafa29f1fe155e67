package io.headscope.analysis.export;

import io.headscope.analysis.heads.LayerTokenTypes;
import io.headscope.analysis.heads.TokenTypeShares;
import io.headscope.model.store.SafeFiles;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/**
 * The {@code token-types} CSV: one row per layer (1-based), the weight shares of {@code cls, sep,
 * punct, other} and the same under norm weighting (METHODS.md). The header is documented in the README.
 */
public final class TokenTypeCsv {
  public static final List<String> HEADER = List.of(
      "layer", "cls", "sep", "punct", "other", "norm_cls", "norm_sep", "norm_punct", "norm_other", "inputs");

  private TokenTypeCsv() {}

  public static void write(Path file, boolean overwrite, List<LayerTokenTypes> layers, int inputs) {
    SafeFiles.writeAtomically(file, overwrite, out -> write(layers, inputs, out));
  }

  public static void write(List<LayerTokenTypes> layers, int inputs, OutputStream out) throws IOException {
    CSVPrinter p = new CSVPrinter(new OutputStreamWriter(out, StandardCharsets.UTF_8),
        CSVFormat.DEFAULT.builder().setHeader(HEADER.toArray(String[]::new)).setRecordSeparator("\n").get());
    for (LayerTokenTypes l : layers) {
      TokenTypeShares w = l.weight();
      TokenTypeShares n = l.norm();
      List<Object> row = new ArrayList<>();
      row.add(l.layer() + 1);
      row.addAll(HeadCsv.nums(w.cls(), w.sep(), w.punct(), w.other(), n.cls(), n.sep(), n.punct(), n.other()));
      row.add(inputs);
      p.printRecord(row);
    }
    p.flush();
  }
}
