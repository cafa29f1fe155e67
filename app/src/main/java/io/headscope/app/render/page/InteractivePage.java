package io.headscope.app.render.page;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.headscope.analysis.heads.HeadPattern;
import io.headscope.analysis.heads.HeadScore;
import io.headscope.app.render.CategoryColors;
import io.headscope.app.render.LineSelection;
import io.headscope.app.render.Palette;
import io.headscope.app.render.UiColor;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.store.SafeFiles;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.zip.GZIPOutputStream;

/**
 * One self-contained HTML file that shows a {@link PageData} in any browser, offline: BertViz's head view,
 * the model view, the neuron view, the categories and the predictions before and after switching heads off.
 * The numbers travel as JSON in a {@code <script type="application/json">} block; the arrays inside it are
 * gzip-compressed and base64-encoded, exact float32 while the page stays under {@link #PAGE_LIMIT}, else
 * quantised along {@link Encoding#LADDER} (maps as {@code round(s a)} for s = 65535 down to 255, queries and keys
 * as int8 with one scale per vector): see docs/METHODS.md, "The interactive page". A Content-Security-Policy allows no network at all and only the
 * page's own script and style (by their SHA-256); the page loads no image, font or frame.
 */
public final class InteractivePage {
  /** The largest page the quantisation ladder aims for: a 128-token bert-base page stays under 5 MB. */
  public static final long PAGE_LIMIT = 4_900_000;

  private static final String RESOURCES = "/io/headscope/app/render/page/";
  private static final JsonFactory FACTORY = new JsonFactory();

  /**
   * How the arrays are stored, finest first: the page takes the first that keeps it under {@link #PAGE_LIMIT}.
   *
   * @param mapScale 0 for float32 maps, else each map value stored as {@code round(scale * a)}
   * @param qkLevels 0 for float32 queries and keys, else each stored as int8 {@code round(x / s)} with
   *     {@code s = max|x| / qkLevels} per vector (127, or 31 as a last resort)
   */
  public record Encoding(int mapScale, int qkLevels) {
    // the maps coarsen first: 1/255 is still finer than the heatmap's colours, while q and k at 31 levels move
    // the neuron view's softmax by up to 0.15 (127 levels: 0.03) on bert-base at 128 tokens
    public static final List<Encoding> LADDER = List.of(new Encoding(0, 0), new Encoding(65535, 127),
        new Encoding(4095, 127), new Encoding(1023, 127), new Encoding(255, 127), new Encoding(255, 31));

    public boolean exact() {
      return mapScale == 0 && qkLevels == 0;
    }

    public boolean qkInt8() {
      return qkLevels > 0;
    }

    /** The largest error of a stored map value: half a step. */
    public double mapBound() {
      return mapScale == 0 ? 0 : 0.5 / mapScale;
    }
  }

  private InteractivePage() {}

  /** The page's bytes in the finest encoding of {@link Encoding#LADDER} that fits under {@link #PAGE_LIMIT}. */
  public static byte[] html(PageData d) {
    return html(d, (CircuitPart) null);
  }

  /** As {@link #html(PageData)}, with the circuit graph's tab when {@code circuit} is not null. */
  public static byte[] html(PageData d, CircuitPart circuit) {
    byte[] page = null;
    Map<String, String> packed = new HashMap<>(); // the maps' and the vectors' blobs, each made once
    long exactBytes = 4L * d.layers() * d.heads() * d.tokens() * ((d.asRun() != d.intact() ? 2L : 1L) * d.tokens()
        + 2L * d.headSize());
    for (Encoding e : Encoding.LADDER) {
      if (e.exact() && exactBytes > 2 * PAGE_LIMIT) {
        continue; // float32 never gzips to less than half: no need to try
      }
      page = html(d, e, packed, circuit);
      if (page.length <= PAGE_LIMIT) {
        break;
      }
    }
    return page;
  }

  /** The page's bytes in one encoding. */
  public static byte[] html(PageData d, Encoding e) {
    return html(d, e, new HashMap<>(), null);
  }

  private static byte[] html(PageData d, Encoding e, Map<String, String> packed, CircuitPart circuit) {
    Blobs b = Blobs.of(d, e, packed);
    return assemble(json(d, b, circuit));
  }

  /** The page around its data (the JSON of the {@code headscope-data} block): template, style, script, policy. */
  static byte[] assemble(String json) {
    String data = escapeForScript(json);
    String script = resource("page.js");
    String style = resource("page.css");
    String body = resource("page.html");
    String csp = "default-src 'none'; script-src '" + sha256(script) + "'; style-src '" + sha256(style)
        + "'; base-uri 'none'; form-action 'none'";
    String page = body.replace("{{CSP}}", csp).replace("{{STYLE}}", style).replace("{{SCRIPT}}", script);
    int at = page.indexOf("{{DATA}}");
    page = page.substring(0, at) + data + page.substring(at + "{{DATA}}".length());
    return page.getBytes(StandardCharsets.UTF_8);
  }

  /** The page as written content (the command line's output path). */
  public static SafeFiles.Content content(PageData d) {
    return content(d, null);
  }

  /** The page with the circuit graph's tab (null: none) as written content. */
  public static SafeFiles.Content content(PageData d, CircuitPart circuit) {
    byte[] page = html(d, circuit);
    return (OutputStream out) -> out.write(page);
  }

  /**
   * JSON made safe inside a {@code <script>} element: every {@code <}, {@code >}, {@code &} and line or
   * paragraph separator becomes its {@code \\uXXXX} escape. They can occur only inside JSON strings, where the
   * escape means the same character, so the data is unchanged and no {@code </script>} or {@code <!--} can appear.
   */
  static String escapeForScript(String json) {
    StringBuilder sb = new StringBuilder(json.length() + 64);
    for (int i = 0; i < json.length(); i++) {
      char c = json.charAt(i);
      switch (c) {
        case '<' -> sb.append("\\u003c");
        case '>' -> sb.append("\\u003e");
        case '&' -> sb.append("\\u0026");
        case '\u2028' -> sb.append("\\u2028");
        case '\u2029' -> sb.append("\\u2029");
        default -> sb.append(c);
      }
    }
    return sb.toString();
  }

  /** {@code sha256-BASE64} of a script's or style's text, as CSP compares it. */
  static String sha256(String text) {
    try {
      byte[] h = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return "sha256-" + Base64.getEncoder().encodeToString(h);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String resource(String name) {
    try (InputStream in = InteractivePage.class.getResourceAsStream(RESOURCES + name)) {
      if (in == null) {
        throw new HeadScopeException("The page template " + name + " is missing from the build.");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String json(PageData d, Blobs b, CircuitPart circuit) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (JsonGenerator g = FACTORY.createGenerator(bytes, JsonEncoding.UTF8)) {
      g.writeStartObject();
      g.writeStringField("format", "headscope-page/1");
      g.writeStringField("model", d.model());
      g.writeStringField("text", d.text());
      if (d.pair() != null) {
        g.writeStringField("pair", d.pair());
      }
      g.writeArrayFieldStart("tokens");
      for (String s : d.intact().tokens()) {
        g.writeString(s);
      }
      g.writeEndArray();
      g.writeFieldName("ids");
      g.writeArray(d.intact().encoding().ids(), 0, d.intact().encoding().ids().length);
      g.writeFieldName("segments");
      g.writeArray(d.intact().encoding().segments(), 0, d.intact().encoding().segments().length);
      g.writeNumberField("truncatedWordpieces", d.intact().encoding().droppedWordpieces());
      g.writeNumberField("layers", d.layers());
      g.writeNumberField("heads", d.heads());
      g.writeNumberField("headSize", d.headSize());
      g.writeBooleanField("causal", d.causal());
      g.writeArrayFieldStart("disabled");
      for (Head h : d.disabled()) {
        g.writeString(h.toString());
      }
      g.writeEndArray();
      // the head the neuron view opens on (the app's, else the first one off), its query the first mask
      g.writeStringField("neuronHead", d.neuronHead().toString());
      g.writeStringField("mode", d.asRun().mask().mode().name().toLowerCase(Locale.ROOT));
      g.writeStringField("shown", switch (d.shown()) {
        case INTACT -> "intact";
        case AS_RUN -> "asRun";
        case DIFFERENCE -> "difference";
      });
      g.writeStringField("classifier", d.classifier());
      if (d.scores() != null) {
        writeCategories(g, d.scores());
      } else {
        g.writeStringField("categoriesWithheld", d.model() + " is causal (each token sees only the tokens before "
            + "it): Kovaleva's categories are defined on bidirectional maps, so HeadScope withholds them.");
      }
      writePalette(g, d.heads());
      g.writeObjectFieldStart("lines");
      g.writeNumberField("perQuery", LineSelection.perQuery(d.tokens(), 1));
      g.writeNumberField("perQueryOverlay", LineSelection.perQuery(d.tokens(), 2));
      g.writeNumberField("minShare", LineSelection.MIN_SHARE);
      g.writeEndObject();
      if (circuit != null) {
        circuit.write(g);
      }
      if (d.predictionsJson() != null) {
        g.writeFieldName("predictions");
        g.writeRawValue(d.predictionsJson());
      }
      Encoding e = b.encoding;
      g.writeObjectFieldStart("encoding");
      g.writeStringField("kind", e.exact() ? "exact" : "quantised");
      g.writeStringField("maps", e.mapScale() == 0 ? "float32"
          : "uint16 round(" + e.mapScale() + " a), high bytes then low bytes; as run: (as run - intact) mod 65536 the same way");
      g.writeNumberField("mapScale", e.mapScale());
      g.writeNumberField("mapBound", e.mapBound());
      g.writeStringField("qk", e.qkInt8() ? "int8 round(x / s), s = max|x| / " + e.qkLevels() + " per vector" : "float32");
      g.writeNumberField("qkLevels", e.qkLevels());
      g.writeStringField("compression", "gzip, base64");
      g.writeEndObject();
      g.writeObjectFieldStart("data");
      g.writeStringField("intact", b.intact);
      if (b.asRun != null) {
        g.writeStringField("asRun", b.asRun);
      }
      g.writeStringField("q", b.q);
      g.writeStringField("k", b.k);
      if (b.qScale != null) {
        g.writeStringField("qScale", b.qScale);
        g.writeStringField("kScale", b.kScale);
      }
      g.writeEndObject();
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }

  static void writePalette(JsonGenerator g, int heads) throws IOException {
    g.writeObjectFieldStart("palette");
    g.writeArrayFieldStart("heat");
    for (int i = 0; i <= 4; i++) {
      g.writeString(hex(Palette.argb(i / 4.0, 1.0)));
    }
    g.writeEndArray();
    g.writeStringField("negative", hex(Palette.diverging(-1, 1)));
    g.writeStringField("positive", hex(Palette.diverging(1, 1)));
    g.writeArrayFieldStart("headColors");
    for (int h = 0; h < heads; h++) {
      g.writeString(hex(LineSelection.headColor(h)));
    }
    g.writeEndArray();
    g.writeObjectFieldStart("categories");
    for (HeadPattern p : HeadPattern.values()) {
      g.writeStringField(p.label(), hex(CategoryColors.rgb(p)));
    }
    g.writeEndObject();
    g.writeObjectFieldStart("ui");
    for (UiColor c : UiColor.values()) {
      g.writeStringField(c.cssName(), hex(c.rgb()));
    }
    g.writeEndObject();
    g.writeEndObject();
  }

  private static String hex(int rgb) {
    return String.format(Locale.ROOT, "#%06x", rgb & 0xFFFFFF);
  }

  /** The arrays, each gzip-compressed and base64-encoded. */
  private record Blobs(Encoding encoding, String intact, String asRun, String q, String k, String qScale,
      String kScale) {
    static Blobs of(PageData d, Encoding e, Map<String, String> packed) {
      String[] maps = packed.containsKey("intact" + e.mapScale())
          ? new String[] {packed.get("intact" + e.mapScale()), packed.get("asRun" + e.mapScale())}
          : maps(d, e);
      packed.put("intact" + e.mapScale(), maps[0]);
      packed.put("asRun" + e.mapScale(), maps[1]);
      String[] qk = packed.containsKey("q" + e.qkLevels())
          ? new String[] {packed.get("q" + e.qkLevels()), packed.get("k" + e.qkLevels()),
              packed.get("qs" + e.qkLevels()), packed.get("ks" + e.qkLevels())}
          : vectors(d, e);
      packed.put("q" + e.qkLevels(), qk[0]);
      packed.put("k" + e.qkLevels(), qk[1]);
      packed.put("qs" + e.qkLevels(), qk[2]);
      packed.put("ks" + e.qkLevels(), qk[3]);
      return new Blobs(e, maps[0], maps[1], qk[0], qk[1], qk[2], qk[3]);
    }

    private static String[] maps(PageData d, Encoding e) {
      float[][][][] a = d.intact().attention();
      boolean heads = d.asRun() != d.intact();
      String intact;
      String asRun = null;
      if (e.mapScale() == 0) {
        intact = pack(float32(a));
        asRun = heads ? pack(float32(d.asRun().attention())) : null;
      } else {
        int[] qi = quantise(a, e.mapScale());
        intact = pack(planes(qi));
        if (heads) {
          // as run minus intact modulo 2^16: zero below the first switched-off layer, small above it
          int[] qr = quantise(d.asRun().attention(), e.mapScale());
          for (int i = 0; i < qr.length; i++) {
            qr[i] = (qr[i] - qi[i]) & 0xFFFF;
          }
          asRun = pack(planes(qr));
        }
      }
      return new String[] {intact, asRun};
    }

    private static String[] vectors(PageData d, Encoding e) {
      if (!e.qkInt8()) {
        return new String[] {pack(float32(d.q())), pack(float32(d.k())), null, null};
      }
      byte[][] q = int8(d.q(), e.qkLevels());
      byte[][] k = int8(d.k(), e.qkLevels());
      return new String[] {pack(q[0]), pack(k[0]), pack(q[1]), pack(k[1])};
    }
  }

  /** Little-endian float32, in the arrays' row-major order. */
  static byte[] float32(float[][][][] a) {
    int count = 0;
    for (float[][][] x : a) {
      for (float[][] y : x) {
        for (float[] z : y) {
          count += z.length;
        }
      }
    }
    ByteBuffer b = ByteBuffer.allocate(4 * count).order(ByteOrder.LITTLE_ENDIAN);
    for (float[][][] x : a) {
      for (float[][] y : x) {
        for (float[] z : y) {
          for (float v : z) {
            b.putFloat(v);
          }
        }
      }
    }
    return b.array();
  }

  /** {@code round(scale a)} clamped to [0, scale], row-major. */
  static int[] quantise(float[][][][] a, int scale) {
    byte[] f = float32(a);
    ByteBuffer in = ByteBuffer.wrap(f).order(ByteOrder.LITTLE_ENDIAN);
    int[] out = new int[f.length / 4];
    for (int i = 0; i < out.length; i++) {
      out[i] = (int) Math.max(0, Math.min(scale, Math.round(in.getFloat() * (double) scale)));
    }
    return out;
  }

  /** Values below 65536 as two byte planes: every high byte first, then every low byte (they compress apart). */
  static byte[] planes(int[] v) {
    byte[] out = new byte[2 * v.length];
    for (int i = 0; i < v.length; i++) {
      if (v[i] < 0 || v[i] > 65535) {
        throw new IllegalStateException("not 16 bits: " + v[i]);
      }
      out[i] = (byte) (v[i] >>> 8);
      out[v.length + i] = (byte) v[i];
    }
    return out;
  }

  /** Each vector (last axis) as int8 {@code round(x / s)} with {@code s = max|x| / levels}; the scales as float32. */
  static byte[][] int8(float[][][][] a, int levels) {
    ByteArrayOutputStream values = new ByteArrayOutputStream();
    ByteArrayOutputStream scales = new ByteArrayOutputStream();
    ByteBuffer one = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
    for (float[][][] x : a) {
      for (float[][] y : x) {
        for (float[] z : y) {
          float max = 0;
          for (float v : z) {
            max = Math.max(max, Math.abs(v));
          }
          float s = max / levels;
          for (float v : z) {
            values.write(s == 0 ? 0 : (byte) Math.max(-levels, Math.min(levels, Math.round(v / s))));
          }
          one.clear();
          one.putFloat(s);
          scales.write(one.array(), 0, 4);
        }
      }
    }
    return new byte[][] {values.toByteArray(), scales.toByteArray()};
  }

  static String pack(byte[] raw) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length / 2 + 64);
    try (GZIPOutputStream gz = new GZIPOutputStream(out, 1 << 16) {
      {
        def.setLevel(6); // within 1% of level 9 on these arrays, at a fraction of the time
      }
    }) {
      gz.write(raw);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Base64.getEncoder().encodeToString(out.toByteArray());
  }

  /** The page's {@code categories} array: each head's shown label and its confidence to three decimals. */
  static void writeCategories(JsonGenerator g, java.util.List<HeadScore> scores) throws java.io.IOException {
    g.writeArrayFieldStart("categories");
    for (HeadScore s : scores) {
      g.writeStartObject();
      g.writeStringField("head", s.head().toString());
      g.writeStringField("category", s.shownLabel());
      g.writeNumberField("confidence", Math.round(s.confidence() * 1000) / 1000.0);
      g.writeEndObject();
    }
    g.writeEndArray();
  }
}
