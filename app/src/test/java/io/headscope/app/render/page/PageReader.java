package io.headscope.app.render.page;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.zip.GZIPInputStream;

/** Reads a page back as the browser does: its JSON block, and the arrays decoded from base64, gzip and their encoding. */
final class PageReader {
  static final String OPEN = "<script type=\"application/json\" id=\"headscope-data\">";

  final String html;
  final JsonNode data;
  final int layers;
  final int heads;
  final int n;
  final int dh;
  final float[] intact;
  final float[] asRun;
  final float[] q;
  final float[] k;
  final double mapBound;
  /** Per vector: the largest error of a stored q or k component (half a step), 0 when exact. */
  final float[] qHalfStep;
  final float[] kHalfStep;

  PageReader(byte[] page) {
    html = new String(page, StandardCharsets.UTF_8);
    int from = html.indexOf(OPEN) + OPEN.length();
    String json = html.substring(from, html.indexOf("</script>", from));
    try {
      data = new ObjectMapper().readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    layers = data.get("layers").asInt();
    heads = data.get("heads").asInt();
    n = data.get("tokens").size();
    dh = data.get("headSize").asInt();
    JsonNode enc = data.get("encoding");
    int scale = enc.get("mapScale").asInt();
    mapBound = enc.get("mapBound").asDouble();
    JsonNode blobs = data.get("data");
    if (scale == 0) {
      intact = float32(bytes(blobs.get("intact").asText()));
      asRun = blobs.has("asRun") ? float32(bytes(blobs.get("asRun").asText())) : intact;
    } else {
      int[] qi = uint16(bytes(blobs.get("intact").asText()));
      intact = new float[qi.length];
      for (int i = 0; i < qi.length; i++) {
        intact[i] = qi[i] / (float) scale;
      }
      if (blobs.has("asRun")) {
        int[] qd = uint16(bytes(blobs.get("asRun").asText()));
        asRun = new float[qd.length];
        for (int i = 0; i < qd.length; i++) {
          asRun[i] = ((qi[i] + qd[i]) & 0xFFFF) / (float) scale;
        }
      } else {
        asRun = intact;
      }
    }
    if (enc.get("qkLevels").asInt() == 0) {
      q = float32(bytes(blobs.get("q").asText()));
      k = float32(bytes(blobs.get("k").asText()));
      qHalfStep = new float[q.length / dh];
      kHalfStep = new float[k.length / dh];
    } else {
      float[] qs = float32(bytes(blobs.get("qScale").asText()));
      float[] ks = float32(bytes(blobs.get("kScale").asText()));
      q = int8(bytes(blobs.get("q").asText()), qs);
      k = int8(bytes(blobs.get("k").asText()), ks);
      qHalfStep = half(qs);
      kHalfStep = half(ks);
    }
  }

  float map(float[] a, int l, int h, int i, int j) {
    return a[((l * heads + h) * n + i) * n + j];
  }

  /** softmax(q_i . k_j / sqrt(dh)) over j from the stored vectors, in double (a causal model masks j > i). */
  double[] softmax(int l, int h, int i, boolean causal) {
    double[] s = new double[n];
    double max = Double.NEGATIVE_INFINITY;
    for (int j = 0; j < n; j++) {
      s[j] = causal && j > i ? Double.NEGATIVE_INFINITY : dot(l, h, i, j) / Math.sqrt(dh);
      max = Math.max(max, s[j]);
    }
    double sum = 0;
    for (int j = 0; j < n; j++) {
      s[j] = Math.exp(s[j] - max);
      sum += s[j];
    }
    for (int j = 0; j < n; j++) {
      s[j] /= sum;
    }
    return s;
  }

  double dot(int l, int h, int i, int j) {
    int qo = ((l * heads + h) * n + i) * dh;
    int ko = ((l * heads + h) * n + j) * dh;
    double s = 0;
    for (int d = 0; d < dh; d++) {
      s += (double) q[qo + d] * k[ko + d];
    }
    return s;
  }

  /**
   * The largest error of one score q.k/sqrt(dh) of query i from the quantisation of q and k:
   * |q.k - q'.k'| <= e_k |q'|_1 + e_q |k'|_1 + dh e_q e_k, for stored q', k' within e_q, e_k of q, k per component.
   */
  double scoreBound(int l, int h, int i) {
    int qv = (l * heads + h) * n + i;
    double eq = qHalfStep[qv];
    double q1 = 0;
    for (int d = 0; d < dh; d++) {
      q1 += Math.abs(q[qv * dh + d]);
    }
    double worst = 0;
    for (int j = 0; j < n; j++) {
      int kv = (l * heads + h) * n + j;
      double ek = kHalfStep[kv];
      double k1 = 0;
      for (int d = 0; d < dh; d++) {
        k1 += Math.abs(k[kv * dh + d]);
      }
      worst = Math.max(worst, ek * q1 + eq * k1 + dh * eq * ek);
    }
    return worst / Math.sqrt(dh);
  }

  private static float[] half(float[] scales) {
    float[] out = new float[scales.length];
    for (int i = 0; i < scales.length; i++) {
      out[i] = scales[i] / 2;
    }
    return out;
  }

  private float[] int8(byte[] v, float[] scales) {
    float[] out = new float[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = v[i] * scales[i / dh];
    }
    return out;
  }

  static byte[] bytes(String b64) {
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(Base64.getDecoder().decode(b64)))) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static float[] float32(byte[] b) {
    float[] out = new float[b.length / 4];
    ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(out);
    return out;
  }

  static int[] uint16(byte[] b) {
    int count = b.length / 2;
    int[] out = new int[count];
    for (int i = 0; i < count; i++) {
      out[i] = ((b[i] & 0xFF) << 8) | (b[count + i] & 0xFF);
    }
    return out;
  }
}
