package io.headscope.analysis.lens;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.function.LongFunction;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/**
 * The lens and direct logit attribution as tables and JSON.
 *
 * <p>{@code lens.csv}: one row per stream and read position, {@code layer} 0 for the embeddings and
 * 1-based after that; ranks 1-based; probabilities from the model's own head; {@code top_tokens} and
 * {@code top_probs} best first, separated by {@code |}; target and contrast fields empty when not followed.
 * {@code dla.csv}: one row per component, direct logits (natural logit units) for target and contrast,
 * and the linearisation they come from in every row ({@code method}: {@code ln_f_scale_frozen} for a
 * pre-LayerNorm model, {@code rms_scale_frozen} for a pre-RMSNorm one, {@code all_scales_frozen} for a post-LayerNorm one, whose {@code bias} row is the
 * remainder; see {@link DlaResult.Method}), so that a file read alone says what its numbers are.
 */
public final class LensCsv {
  public static final String[] LENS_HEADER = {"layer", "point", "position", "token", "target", "target_rank",
      "target_prob", "contrast", "contrast_rank", "contrast_prob", "top_tokens", "top_probs"};
  public static final String[] DLA_HEADER = {"component", "layer", "head", "position", "token", "target_logit",
      "contrast_logit", "logit_diff", "method"};

  private LensCsv() {}

  public static void lens(LensResult r, LongFunction<String> vocab, OutputStream out) throws IOException {
    try (CSVPrinter p = printer(out, LENS_HEADER)) {
      for (LensRow row : r.rows()) {
        p.printRecord(row.layer(), row.point(), row.position(), r.tokens().get(row.position()),
            r.target() < 0 ? "" : vocab.apply(r.target()), row.targetRank() == 0 ? "" : row.targetRank(),
            num(row.targetProb()), r.contrast() < 0 ? "" : vocab.apply(r.contrast()),
            row.contrastRank() == 0 ? "" : row.contrastRank(), num(row.contrastProb()), tops(row, vocab),
            probs(row));
      }
    }
  }

  public static void dla(DlaResult r, OutputStream out) throws IOException {
    String method = methodName(r.method());
    try (CSVPrinter p = printer(out, DLA_HEADER)) {
      for (DlaRow d : r.rows()) {
        p.printRecord(d.component(), d.layer(), d.head() == 0 ? "" : d.head(), d.position(),
            r.tokens().get(d.position()), num(d.target()), num(d.contrast()), num(d.difference()), method);
      }
    }
  }

  /** The CSV's and JSON's name of a linearisation. */
  public static String methodName(DlaResult.Method m) {
    return switch (m) {
      case FINAL_SCALE_FROZEN -> "ln_f_scale_frozen";
      case FINAL_RMS_SCALE_FROZEN -> "rms_scale_frozen";
      case ALL_SCALES_FROZEN -> "all_scales_frozen";
    };
  }

  /**
   * Both in one object: {@code model, tokens, target, contrast, lens: [...]}, and with attribution
   * {@code dlaMethod} (name), {@code dlaNote} (what it is, one line) and {@code dla: [...]}.
   */
  public static void json(String model, LensResult r, DlaResult dla, LongFunction<String> vocab,
      OutputStream out) throws IOException {
    try (JsonGenerator g = new JsonFactory().createGenerator(out, JsonEncoding.UTF8)) {
      g.writeStartObject();
      g.writeStringField("model", model);
      g.writeArrayFieldStart("tokens");
      for (String t : r.tokens()) {
        g.writeString(t);
      }
      g.writeEndArray();
      g.writeStringField("target", r.target() < 0 ? null : vocab.apply(r.target()));
      g.writeStringField("contrast", r.contrast() < 0 ? null : vocab.apply(r.contrast()));
      g.writeArrayFieldStart("lens");
      for (LensRow row : r.rows()) {
        g.writeStartObject();
        g.writeNumberField("layer", row.layer());
        g.writeStringField("point", row.point());
        g.writeNumberField("position", row.position());
        if (row.targetRank() > 0) {
          g.writeNumberField("targetRank", row.targetRank());
          g.writeNumberField("targetProb", row.targetProb());
        }
        if (row.contrastRank() > 0) {
          g.writeNumberField("contrastRank", row.contrastRank());
          g.writeNumberField("contrastProb", row.contrastProb());
        }
        g.writeArrayFieldStart("top");
        for (int i = 0; i < row.top().length; i++) {
          g.writeStartObject();
          g.writeStringField("token", vocab.apply(row.top()[i]));
          g.writeNumberField("prob", row.topProbs()[i]);
          g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
      }
      g.writeEndArray();
      if (dla != null) {
        g.writeStringField("dlaMethod", methodName(dla.method()));
        g.writeStringField("dlaNote", dla.method().description());
        g.writeArrayFieldStart("dla");
        for (DlaRow d : dla.rows()) {
          g.writeStartObject();
          g.writeStringField("component", d.component());
          g.writeNumberField("layer", d.layer());
          if (d.head() > 0) {
            g.writeNumberField("head", d.head());
          }
          g.writeNumberField("position", d.position());
          g.writeNumberField("target", d.target());
          if (!Double.isNaN(d.contrast())) {
            g.writeNumberField("contrast", d.contrast());
          }
          g.writeEndObject();
        }
        g.writeEndArray();
      }
      g.writeEndObject();
    }
  }

  private static CSVPrinter printer(OutputStream out, String[] header) throws IOException {
    Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
    return new CSVPrinter(w, CSVFormat.DEFAULT.builder().setHeader(header).setRecordSeparator('\n').get());
  }

  private static String tops(LensRow row, LongFunction<String> vocab) {
    StringBuilder s = new StringBuilder();
    for (long id : row.top()) {
      s.append(s.length() == 0 ? "" : "|").append(vocab.apply(id));
    }
    return s.toString();
  }

  private static String probs(LensRow row) {
    StringBuilder s = new StringBuilder();
    for (float p : row.topProbs()) {
      s.append(s.length() == 0 ? "" : "|").append(num(p));
    }
    return s.toString();
  }

  static String num(double v) {
    return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.8g", v);
  }
}
