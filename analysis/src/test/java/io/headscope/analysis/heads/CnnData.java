package io.headscope.analysis.heads;

import io.headscope.analysis.heads.cnn.MapImage;
import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The labelled maps as {@link MapImage}s, one forward pass per input, kept in a cache file under
 * {@code target} (keyed by the entries' ids and the image size) so that the experiments after the first
 * skip the forward passes. The cache is a copy of what the model computes, never a source: a changed
 * label file or image size makes it stale and it is rebuilt.
 */
final class CnnData {
  static final Path CACHE = Path.of("target", "cnn-images-" + MapImage.SIZE + ".bin");
  /** The four-channel images ({@link MapImage#of(float[][], long[], boolean[])}) of the variant run. */
  static final boolean MARKED = Boolean.getBoolean("headscope.cnn.marked");

  private CnnData() {}

  /** @param model called only when the cache is missing or stale */
  static float[][][][] images(java.util.function.Supplier<BertModel> model, List<ClassifierEvaluation.Map1> maps)
      throws IOException {
    String key = key(maps);
    Path cache = MARKED ? Path.of("target", "cnn-images-" + MapImage.SIZE + "-marked.bin") : CACHE;
    int channels = MapImage.CHANNELS + (MARKED ? 1 : 0);
    if (Files.exists(cache)) {
      try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(cache)))) {
        if (in.readUTF().equals(key)) {
          float[][][][] out = new float[maps.size()][channels][MapImage.SIZE][MapImage.SIZE];
          for (float[][][] im : out) {
            for (float[][] ch : im) {
              for (float[] row : ch) {
                for (int j = 0; j < row.length; j++) {
                  row[j] = in.readFloat();
                }
              }
            }
          }
          return out;
        }
      }
    }
    float[][][][] out = compute(model.get(), maps);
    Files.createDirectories(cache.getParent());
    try (DataOutputStream o = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(cache)))) {
      o.writeUTF(key);
      for (float[][][] im : out) {
        for (float[][] ch : im) {
          for (float[] row : ch) {
            for (float v : row) {
              o.writeFloat(v);
            }
          }
        }
      }
    }
    return out;
  }

  /** One trace at a time: the maps of an input are consecutive in the label files, but not assumed so. */
  static float[][][][] compute(BertModel model, List<ClassifierEvaluation.Map1> maps) {
    float[][][][] out = new float[maps.size()][][][];
    java.util.Map<String, List<Integer>> byInput = new java.util.LinkedHashMap<>();
    for (int i = 0; i < maps.size(); i++) {
      byInput.computeIfAbsent(maps.get(i).entry().input(), k -> new java.util.ArrayList<>()).add(i);
    }
    for (List<Integer> idx : byInput.values()) {
      LabelledMaps.Entry e0 = maps.get(idx.get(0)).entry();
      AttentionTrace t = model.trace(model.encode(e0.a(), e0.b()));
      long[] segments = t.encoding().segments();
      for (int i : idx) {
        LabelledMaps.Entry e = maps.get(i).entry();
        float[][] map = t.map(new Head(e.layer(), e.head()));
        out[i] = MARKED ? MapImage.of(map, segments, MapImage.marked(t.tokens())) : MapImage.of(map, segments);
      }
    }
    return out;
  }

  private static String key(List<ClassifierEvaluation.Map1> maps) {
    StringBuilder b = new StringBuilder("MapImage v1 size " + MapImage.SIZE + " channels " + (MapImage.CHANNELS + (MARKED ? 1 : 0)) + ";");
    for (ClassifierEvaluation.Map1 m : maps) {
      b.append(m.entry().id()).append(',');
    }
    return Integer.toHexString(b.toString().hashCode()) + ":" + maps.size();
  }
}
