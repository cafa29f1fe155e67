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
 * punct, other} and the same under norm weighting (METHODS.md). The header is documented in the README. The two
 * special-token columns are named by the model's own specials: BERT's {@code [CLS]} and {@code [SEP]} keep the
 * header {@link #HEADER} ({@code cls}, {@code sep}) that scripts read; RoBERTa's and XLM-R's are {@code <s>} and
 * {@code </s>} (and {@code norm_<s>}, {@code norm_</s>}), so no column names a token the model does not have.
 */
public final class TokenTypeCsv {
  public static final List<String> HEADER = List.of(
      "layer", "cls", "sep", "punct", "other", "norm_cls", "norm_sep", "norm_punct", "norm_other", "inputs");

  private TokenTypeCsv() {}

  /** BERT's special tokens, whose columns are {@code cls} and {@code sep}. */
  public static final String BERT_CLS = "[CLS]";
  public static final String BERT_SEP = "[SEP]";

  /**
   * The header for a model whose special tokens of the {@code [CLS]} and {@code [SEP]} types are spelled {@code
   * cls} and {@code sep}: {@link #HEADER} for BERT's, else those columns named by the tokens themselves.
   */
  public static List<String> header(String cls, String sep) {
    if (BERT_CLS.equals(cls) && BERT_SEP.equals(sep)) {
      return HEADER;
    }
    return List.of("layer", cls, sep, "punct", "other", "norm_" + cls, "norm_" + sep, "norm_punct", "norm_other",
        "inputs");
  }

  /**
   * A causal model's header ({@code headscope token-types} on a decoder): the first token's share (the attention
   * sink), punctuation's and the rest's, by weight only (no [SEP], no norm side: {@link
   * io.headscope.analysis.heads.FirstTokenTypes}).
   */
  public static final List<String> CAUSAL_HEADER = List.of("layer", "first_token", "punct", "other", "inputs");

  /** A causal model's CSV: {@link #CAUSAL_HEADER}, the first token read from each layer's {@code cls} place. */
  public static void writeCausal(List<LayerTokenTypes> layers, int inputs, OutputStream out) throws IOException {
    CSVPrinter p = printer(CAUSAL_HEADER, out);
    for (LayerTokenTypes l : layers) {
      TokenTypeShares w = l.weight();
      List<Object> row = new ArrayList<>();
      row.add(l.layer() + 1);
      row.addAll(HeadCsv.nums(w.cls(), w.punct(), w.other()));
      row.add(inputs);
      p.printRecord(row);
    }
    p.flush();
  }

  public static void write(Path file, boolean overwrite, List<LayerTokenTypes> layers, int inputs) {
    SafeFiles.writeAtomically(file, overwrite, out -> write(layers, inputs, out));
  }

  public static void write(List<LayerTokenTypes> layers, int inputs, OutputStream out) throws IOException {
    write(layers, inputs, BERT_CLS, BERT_SEP, out);
  }

  /** The CSV with the special-token columns named by the model's {@code cls} and {@code sep} tokens. */
  public static void write(List<LayerTokenTypes> layers, int inputs, String cls, String sep, OutputStream out)
      throws IOException {
    CSVPrinter p = printer(header(cls, sep), out);
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

  private static CSVPrinter printer(List<String> header, OutputStream out) throws IOException {
    return new CSVPrinter(new OutputStreamWriter(out, StandardCharsets.UTF_8),
        CSVFormat.DEFAULT.builder().setHeader(header.toArray(String[]::new)).setRecordSeparator("\n").get());
  }
}
