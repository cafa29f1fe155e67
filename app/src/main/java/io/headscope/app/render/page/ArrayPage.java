package io.headscope.app.render.page;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.headscope.analysis.export.NpzReader;
import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.analysis.heads.HeadScore;
import io.headscope.app.render.LineSelection;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadScopeException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The interactive page for attention that HeadScope did not compute: BertViz's {@code head_view(attention,
 * tokens)} and {@code model_view}, from arrays (a .npz, or Python's {@code headscope.head_view}). The same
 * offline page as {@link InteractivePage} (no network, the policy, tokens as text), without what needs the model
 * (the neuron view's q and k, predictions, switching heads off); an encoder-decoder's encoder, decoder and cross
 * attention are parts the page switches between.
 *
 * <p>The .npz's arrays (BertViz's argument names): {@code tokens} and {@code attention} (layer, head, query, key), or
 * (layer, 1, head, query, key) as a stacked tuple of Hugging Face's {@code outputs.attentions}; or any of
 * {@code encoder_attention}, {@code decoder_attention}, {@code cross_attention} with {@code encoder_tokens} and
 * {@code decoder_tokens} (cross attention: decoder queries over encoder keys). Optional: {@code sentence_b_start}
 * (the first token of segment b), {@code include_layers} and {@code include_heads} (0-based: which to show, labelled
 * by their own numbers), {@code layer} and {@code heads} (0-based: where the head view opens), {@code view}
 * ({@code head} or {@code model}), {@code title} (what the page names the arrays by; else the file's name).
 * {@code encoder_ids} and {@code decoder_ids} (what {@code attention --target --format npz} adds) are read past.
 *
 * @param parts what the page shows, the first opened first
 * @param view the view it opens on, {@code head} or {@code model}
 * @param layer the head view's first layer, an index into the parts' shown layers
 * @param heads the head view's first heads (indices into the shown heads), or null for all
 * @param title the name the arrays go by on the page, or null for the caller's (the file's name)
 * @param ran whether HeadScope ran the model for these maps (an encoder-decoder's run) rather than being given them
 */
public record ArrayPage(List<Part> parts, String view, int layer, int[] heads, String title, boolean ran) {
  private static final JsonFactory FACTORY = new JsonFactory();

  /** How close to 1 every row must sum for the maps to count as attention the categories are defined on. */
  static final double ROW_SUM_TOLERANCE = 1e-3;

  /**
   * One set of maps over one pair of token lists.
   *
   * @param name {@code attention}, {@code encoder}, {@code decoder} or {@code cross}
   * @param attention (layer, head, query, key), row-major
   * @param layerNumbers each shown layer's 1-based number
   * @param headNumbers each shown head's 1-based number
   * @param categories every head's category (layer by layer), or null when withheld
   * @param withheld why the categories are withheld, or null
   */
  public record Part(String name, List<String> queryTokens, List<String> keyTokens, int[] querySegments,
      int[] keySegments, float[] attention, int layers, int heads, int[] layerNumbers, int[] headNumbers,
      List<HeadScore> categories, String withheld) {

    float[][] map(int l, int h) {
      int q = queryTokens.size();
      int k = keyTokens.size();
      float[][] m = new float[q][k];
      int base = (l * heads + h) * q * k;
      for (int i = 0; i < q; i++) {
        System.arraycopy(attention, base + i * k, m[i], 0, k);
      }
      return m;
    }
  }

  private static final Set<String> KNOWN = Set.of("tokens", "attention", "sentence_b_start", "encoder_attention",
      "decoder_attention", "cross_attention", "encoder_tokens", "decoder_tokens", "include_layers", "include_heads",
      "layer", "heads", "view", "title", "encoder_ids", "decoder_ids");

  /** Reads the arrays of a .npz (see the class comment); a missing or inconsistent array is one clear message. */
  public static ArrayPage of(Map<String, NpzReader.Array> a, HeadClassifier classifier) {
    for (String name : a.keySet()) {
      if (!KNOWN.contains(name)) {
        throw new HeadScopeException("The .npz has an array \"" + name + "\" HeadScope does not know: it reads "
            + String.join(", ", new java.util.TreeSet<>(KNOWN)) + ".");
      }
    }
    boolean encDec = a.containsKey("encoder_attention") || a.containsKey("decoder_attention")
        || a.containsKey("cross_attention");
    List<Part> parts = new ArrayList<>();
    if (encDec) {
      if (a.containsKey("attention") || a.containsKey("tokens")) {
        throw new HeadScopeException("The .npz mixes attention/tokens with the encoder-decoder arrays: give one form.");
      }
      List<String> enc = a.containsKey("encoder_tokens") ? tokens(a, "encoder_tokens") : null;
      List<String> dec = a.containsKey("decoder_tokens") ? tokens(a, "decoder_tokens") : null;
      if (a.containsKey("encoder_attention")) {
        parts.add(part("encoder", a, "encoder_attention", need(enc, "encoder_tokens", "encoder_attention"),
            need(enc, "encoder_tokens", "encoder_attention"), -1, classifier));
      }
      if (a.containsKey("decoder_attention")) {
        parts.add(part("decoder", a, "decoder_attention", need(dec, "decoder_tokens", "decoder_attention"),
            need(dec, "decoder_tokens", "decoder_attention"), -1, classifier));
      }
      if (a.containsKey("cross_attention")) {
        parts.add(part("cross", a, "cross_attention", need(dec, "decoder_tokens", "cross_attention"),
            need(enc, "encoder_tokens", "cross_attention"), -1, classifier));
      }
    } else {
      if (!a.containsKey("attention") || !a.containsKey("tokens")) {
        throw new HeadScopeException("The .npz needs the arrays tokens and attention (layer, head, query, key), or "
            + "encoder_attention / decoder_attention / cross_attention with encoder_tokens and decoder_tokens; it has "
            + String.join(", ", a.keySet()) + ".");
      }
      List<String> t = tokens(a, "tokens");
      int b = a.containsKey("sentence_b_start") ? scalar(a, "sentence_b_start") : -1;
      if (b > t.size()) {
        throw new HeadScopeException("sentence_b_start is " + b + " but there are only " + t.size() + " tokens.");
      }
      parts.add(part("attention", a, "attention", t, t, b, classifier));
    }
    String view = "head";
    if (a.containsKey("view")) {
      NpzReader.Array v = a.get("view");
      view = v.isText() && v.size() == 1 ? v.strings().get(0) : "";
      if (!view.equals("head") && !view.equals("model")) {
        throw new HeadScopeException("view must be the text head or model.");
      }
    }
    int layer = a.containsKey("layer") ? scalar(a, "layer") : 0;
    int shownLayers = parts.get(0).layers();
    if (layer < 0 || layer >= shownLayers) {
      throw new HeadScopeException("layer is " + layer + " but " + shownLayers + " layers are shown (0-based).");
    }
    int[] heads = a.containsKey("heads") ? ints(a.get("heads"), "heads") : null;
    if (heads != null) {
      for (int h : heads) {
        if (h < 0 || h >= parts.get(0).heads()) {
          throw new HeadScopeException("heads holds " + h + " but " + parts.get(0).heads() + " heads are shown (0-based).");
        }
      }
    }
    return new ArrayPage(parts, view, layer, heads, title(a), false);
  }

  /**
   * The page of an encoder-decoder's run (T5, BART; {@code headscope html --target}): its encoder, decoder and
   * cross maps as the encoder-decoder arrays of a .npz (BertViz's {@code head_view(encoder_attention=...,
   * decoder_attention=..., cross_attention=..., encoder_tokens=..., decoder_tokens=...)}), the encoder's shown first.
   */
  public static ArrayPage of(io.headscope.model.EncoderDecoderTrace t, HeadClassifier classifier) {
    Map<String, NpzReader.Array> a = new java.util.LinkedHashMap<>();
    a.put("encoder_tokens", text(t.source().tokens()));
    a.put("decoder_tokens", text(t.target().tokens()));
    a.put("encoder_attention", numbers(t.encoder()));
    a.put("decoder_attention", numbers(t.decoder()));
    a.put("cross_attention", numbers(t.cross()));
    a.put("title", text(List.of(t.model())));
    ArrayPage p = of(a, classifier);
    return new ArrayPage(p.parts(), p.view(), p.layer(), p.heads(), p.title(), true);
  }

  private static NpzReader.Array text(List<String> tokens) {
    return new NpzReader.Array(new int[] {tokens.size()}, null, List.copyOf(tokens), false);
  }

  /** (layer, head, query, key) maps as one array; float32 values are exact in a double. */
  private static NpzReader.Array numbers(float[][][][] maps) {
    int l = maps.length;
    int h = maps[0].length;
    int q = maps[0][0].length;
    int k = maps[0][0][0].length;
    double[] v = new double[l * h * q * k];
    int o = 0;
    for (float[][][] layer : maps) {
      for (float[][] head : layer) {
        for (float[] row : head) {
          for (float x : row) {
            v[o++] = x;
          }
        }
      }
    }
    return new NpzReader.Array(new int[] {l, h, q, k}, v, null, true);
  }

  private static String title(Map<String, NpzReader.Array> a) {
    NpzReader.Array t = a.get("title");
    if (t == null) {
      return null;
    }
    if (!t.isText() || t.size() != 1) {
      throw new HeadScopeException("title must be one str.");
    }
    return t.strings().get(0);
  }

  private static List<String> need(List<String> tokens, String name, String forWhat) {
    if (tokens == null) {
      throw new HeadScopeException(forWhat + " needs " + name + " in the .npz.");
    }
    return tokens;
  }

  private static List<String> tokens(Map<String, NpzReader.Array> a, String name) {
    NpzReader.Array t = a.get(name);
    if (!t.isText() || t.shape().length != 1) {
      throw new HeadScopeException(name + " must be a vector of str (np.array(tokens, dtype=str)), not "
          + (t.isText() ? "shape " + Arrays.toString(t.shape()) : "numbers") + ".");
    }
    if (t.size() == 0) {
      throw new HeadScopeException(name + " is empty.");
    }
    return t.strings();
  }

  private static int scalar(Map<String, NpzReader.Array> a, String name) {
    int[] v = ints(a.get(name), name);
    if (v.length != 1) {
      throw new HeadScopeException(name + " must be one integer.");
    }
    return v[0];
  }

  private static int[] ints(NpzReader.Array x, String name) {
    if (x.isText()) {
      throw new HeadScopeException(name + " must hold integers.");
    }
    int[] out = new int[x.numbers().length];
    for (int i = 0; i < out.length; i++) {
      double v = x.numbers()[i];
      if (v != Math.rint(v) || Math.abs(v) > Integer.MAX_VALUE) {
        throw new HeadScopeException(name + " must hold integers, not " + v + ".");
      }
      out[i] = (int) v;
    }
    return out;
  }

  private static Part part(String name, Map<String, NpzReader.Array> a, String key, List<String> queries,
      List<String> keys, int bStart, HeadClassifier classifier) {
    NpzReader.Array x = a.get(key);
    if (x.isText()) {
      throw new HeadScopeException(key + " must hold numbers.");
    }
    int[] s = x.shape();
    if (s.length == 5 && s[1] == 1) {
      s = new int[] {s[0], s[2], s[3], s[4]}; // a stacked tuple of (1, head, query, key) tensors
    } else if (s.length == 5) {
      throw new HeadScopeException(key + " has a batch of " + s[1] + " inputs (shape " + Arrays.toString(x.shape())
          + "): give one input's attention, (layer, head, query, key).");
    }
    if (s.length != 4) {
      throw new HeadScopeException(key + " must be (layer, head, query, key), not shape " + Arrays.toString(x.shape()) + ".");
    }
    if (s[2] != queries.size() || s[3] != keys.size()) {
      throw new HeadScopeException(key + " is " + s[2] + " queries x " + s[3] + " keys, but there are "
          + queries.size() + " query tokens and " + keys.size() + " key tokens.");
    }
    if (s[0] == 0 || s[1] == 0) {
      throw new HeadScopeException(key + " has no layer or no head (shape " + Arrays.toString(x.shape()) + ").");
    }
    int[] layers = pick(a, "include_layers", s[0]);
    int[] heads = pick(a, "include_heads", s[1]);
    int q = s[2];
    int k = s[3];
    float[] values = new float[layers.length * heads.length * q * k];
    double[] in = x.numbers();
    int o = 0;
    for (int l : layers) {
      for (int h : heads) {
        int base = (l * s[1] + h) * q * k;
        for (int i = 0; i < q * k; i++) {
          double v = in[base + i];
          if (!Double.isFinite(v)) {
            throw new HeadScopeException(key + " holds " + v + " (layer " + l + ", head " + h + "): the page draws "
                + "finite numbers only.");
          }
          values[o++] = (float) v;
        }
      }
    }
    int[] segQ = new int[q];
    for (int i = Math.max(0, bStart); bStart >= 0 && i < q; i++) {
      segQ[i] = 1;
    }
    int[] layerNumbers = Arrays.stream(layers).map(l -> l + 1).toArray();
    int[] headNumbers = Arrays.stream(heads).map(h -> h + 1).toArray();
    Part draft = new Part(name, List.copyOf(queries), List.copyOf(keys), segQ, q == k ? segQ : new int[k], values,
        layers.length, heads.length, layerNumbers, headNumbers, null, null);
    String why = categoriesUndefined(draft);
    if (why != null) {
      return new Part(name, draft.queryTokens(), draft.keyTokens(), segQ, draft.keySegments(), values, layers.length,
          heads.length, layerNumbers, headNumbers, null, why);
    }
    long[] segments = Arrays.stream(segQ).asLongStream().toArray();
    float[] unit = new float[k];
    Arrays.fill(unit, 1f); // the norms feed only the norm-weighted statistics, not the category
    List<HeadScore> scores = new ArrayList<>();
    for (int l = 0; l < layers.length; l++) {
      for (int h = 0; h < heads.length; h++) {
        scores.add(classifier.score(new Head(layers[l], heads[h]), draft.map(l, h), unit, draft.queryTokens(), segments));
      }
    }
    return new Part(name, draft.queryTokens(), draft.keyTokens(), segQ, draft.keySegments(), values, layers.length,
        heads.length, layerNumbers, headNumbers, scores, null);
  }

  private static int[] pick(Map<String, NpzReader.Array> a, String key, int n) {
    if (!a.containsKey(key)) {
      int[] all = new int[n];
      Arrays.setAll(all, i -> i);
      return all;
    }
    int[] v = ints(a.get(key), key);
    if (v.length == 0) {
      throw new HeadScopeException(key + " is empty.");
    }
    for (int i : v) {
      if (i < 0 || i >= n) {
        throw new HeadScopeException(key + " holds " + i + " but the attention has " + n + " (0-based).");
      }
    }
    return v;
  }

  /**
   * Why Kovaleva's categories are not defined on these maps, or null when they are: they are defined on a
   * bidirectional self-attention's probabilities (a square map over one token list, rows summing to 1, some weight
   * above the diagonal); a causal map (nothing above the diagonal) or cross attention is withheld, as for GPT-2.
   */
  static String categoriesUndefined(Part p) {
    int q = p.queryTokens().size();
    int k = p.keyTokens().size();
    if (!p.name().equals("attention") && !p.name().equals("encoder") || q != k) {
      return "Kovaleva's categories are defined on one sequence's bidirectional self-attention; the "
          + p.name() + " attention is " + (q != k ? "not square" : "causal") + ", so HeadScope withholds them.";
    }
    float[] a = p.attention();
    boolean above = false;
    for (int m = 0; m < p.layers() * p.heads(); m++) {
      for (int i = 0; i < q; i++) {
        double sum = 0;
        for (int j = 0; j < k; j++) {
          float v = a[(m * q + i) * k + j];
          if (v < 0) {
            return "These maps hold negative values: they are not attention probabilities, so HeadScope shows no categories.";
          }
          sum += v;
          above |= j > i && v > 0;
        }
        if (Math.abs(sum - 1) > ROW_SUM_TOLERANCE) {
          return "A row of these maps sums to " + String.format(Locale.ROOT, "%.4f", sum) + ", not 1: they are not "
              + "attention probabilities, so HeadScope shows no categories.";
        }
      }
    }
    if (!above && q > 1) {
      return "These maps are causal (nothing above the diagonal): Kovaleva's categories are defined on bidirectional "
          + "maps, so HeadScope withholds them.";
    }
    return null;
  }

  /** The page's bytes (maps stored exactly, as float32), named by the arrays' title, else by {@code fallback}. */
  public byte[] html(String fallback) {
    return InteractivePage.assemble(json(title != null ? title : fallback));
  }

  String json(String title) {
    Part first = parts.get(0);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (JsonGenerator g = FACTORY.createGenerator(bytes, JsonEncoding.UTF8)) {
      g.writeStartObject();
      g.writeStringField("format", "headscope-page/1");
      g.writeStringField("source", ran ? "encoder-decoder" : "arrays");
      g.writeStringField("model", title);
      g.writeStringField("text", String.join(" ", first.queryTokens()));
      g.writeFieldName("tokens");
      strings(g, first.queryTokens());
      g.writeFieldName("segments");
      g.writeArray(first.querySegments(), 0, first.querySegments().length);
      g.writeNumberField("truncatedWordpieces", 0);
      g.writeNumberField("layers", first.layers());
      g.writeNumberField("heads", first.heads());
      g.writeNumberField("headSize", 0);
      g.writeBooleanField("causal", false);
      g.writeArrayFieldStart("disabled");
      g.writeEndArray();
      g.writeStringField("mode", "zero");
      g.writeStringField("shown", "intact");
      g.writeStringField("classifier", new HeadClassifier().method().name().toLowerCase(Locale.ROOT));
      categories(g, first);
      InteractivePage.writePalette(g, Arrays.stream(parts.stream().mapToInt(Part::heads).toArray()).max().orElse(1));
      lines(g, first);
      g.writeObjectFieldStart("encoding");
      g.writeStringField("kind", "exact");
      g.writeStringField("maps", "float32");
      g.writeNumberField("mapScale", 0);
      g.writeNumberField("mapBound", 0);
      g.writeStringField("qk", "none");
      g.writeNumberField("qkLevels", 0);
      g.writeStringField("compression", "gzip, base64");
      g.writeEndObject();
      g.writeObjectFieldStart("open");
      g.writeStringField("view", view);
      g.writeNumberField("layer", layer);
      if (heads != null) {
        g.writeFieldName("heads");
        g.writeArray(heads, 0, heads.length);
      }
      g.writeEndObject();
      g.writeArrayFieldStart("parts");
      for (Part p : parts) {
        g.writeStartObject();
        g.writeStringField("name", p.name());
        g.writeFieldName("queryTokens");
        strings(g, p.queryTokens());
        g.writeFieldName("keyTokens");
        strings(g, p.keyTokens());
        g.writeFieldName("querySegments");
        g.writeArray(p.querySegments(), 0, p.querySegments().length);
        g.writeFieldName("keySegments");
        g.writeArray(p.keySegments(), 0, p.keySegments().length);
        g.writeNumberField("layers", p.layers());
        g.writeNumberField("heads", p.heads());
        g.writeFieldName("layerNumbers");
        g.writeArray(p.layerNumbers(), 0, p.layerNumbers().length);
        g.writeFieldName("headNumbers");
        g.writeArray(p.headNumbers(), 0, p.headNumbers().length);
        categories(g, p);
        lines(g, p);
        g.writeStringField("data", pack(p.attention()));
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeObjectFieldStart("data");
      g.writeStringField("intact", pack(first.attention()));
      g.writeEndObject();
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }

  private static void strings(JsonGenerator g, List<String> s) throws IOException {
    g.writeStartArray();
    for (String t : s) {
      g.writeString(t);
    }
    g.writeEndArray();
  }

  private static void lines(JsonGenerator g, Part p) throws IOException {
    g.writeObjectFieldStart("lines");
    int n = Math.max(p.queryTokens().size(), p.keyTokens().size());
    g.writeNumberField("perQuery", LineSelection.perQuery(n, 1));
    g.writeNumberField("perQueryOverlay", LineSelection.perQuery(n, 2));
    g.writeNumberField("minShare", LineSelection.MIN_SHARE);
    g.writeEndObject();
  }

  private static void categories(JsonGenerator g, Part p) throws IOException {
    if (p.categories() != null) {
      InteractivePage.writeCategories(g, p.categories());
    } else {
      g.writeStringField("categoriesWithheld", p.withheld());
    }
  }

  private static String pack(float[] values) {
    ByteBuffer b = ByteBuffer.allocate(4 * values.length).order(ByteOrder.LITTLE_ENDIAN);
    for (float v : values) {
      b.putFloat(v);
    }
    return InteractivePage.pack(b.array());
  }
}
