package io.headscope.labels;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ProgressListener;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import javax.imageio.ImageIO;

/**
 * Renders label set 3 (issue 32: maps at 128-512 wordpieces) as pages for two blind labellers. Inputs
 * are {@code labels/inputs-3.tsv}; per input ten of the twelve layers without replacement and one
 * random head in each ({@code java.util.Random}, seed {@link #SEED}), ids {@code p001}.. in the order
 * inputs x layers (layers ascending).
 *
 * <p>Drawing, made for long maps: a map of n positions is <b>maximum-pooled</b> (never averaged) in
 * square blocks of {@code ceil(n/256)} positions, so at most 256 cells a side and a one-token-wide
 * diagonal or column keeps its full weight in its block; each cell is a square of whole pixels
 * ({@link #PANEL} px at most a side). Two panels side by side: left, white to dark blue linear to the
 * map's own maximum (as sets 1 and 2); right, the same with {@code (value/max)^0.5} so faint stripes
 * show. Ticks every 32 positions (n up to 256) or 64; along the top and left axes, in a strip outside
 * the cells, a red tick at {@code [CLS]} and at every {@code [SEP]}, and for a pair a bar under the
 * second segment (orange) so the boundary shows without covering a cell. The title holds the map id
 * and n only (like set 2, no layer or head; {@code -Dlabels3.showHead=true} adds them). Four maps a
 * page (2 x 2).
 *
 * <p>Usage: {@code java -Djava.awt.headless=true -cp <test classpath> io.headscope.labels.RenderLongMaps
 * OUT_DIR}. Writes page-NNN.png and manifest.tsv (id, input, kind, layer, head, tokens, page; no
 * labels, nothing from the classifier).
 */
public final class RenderLongMaps {
  static final long SEED = 20261126L;
  static final int LAYERS_PER_INPUT = 10;
  static final int MAX_CELLS = 256;
  static final int PANEL = 512;
  static final int LEFT = 46;
  static final int TOP = 84;
  static final int GAP = 62;
  static final int STRIP = 12;
  static final int COLUMNS = 2;
  static final int ROWS = 2;
  static final int BLOCK_W = LEFT + PANEL + GAP + PANEL + 24;
  static final int BLOCK_H = TOP + PANEL + 40;
  static final double GAMMA = 0.5;

  record Input(String id, String kind, String a, String b, int wordpieces) {}

  record Item(String id, Input input, Head head) {}

  record Map3(String id, int layerHead1, List<String> tokens, int secondStart, float[][] map, String headLabel) {}

  public static void main(String[] args) throws IOException {
    Path out = Path.of(args.length > 0 ? args[0] : "/work/labels3-pages");
    Files.createDirectories(out);
    boolean showHead = Boolean.getBoolean("labels3.showHead");
    List<Item> items = choose(inputs());
    int perPage = COLUMNS * ROWS;
    try (BertModel model = BertModel.load(ModelRepository.standard().resolve("bert-base-uncased", ProgressListener.NONE))) {
      List<String> manifest = new ArrayList<>();
      manifest.add("id\tinput\tkind\tlayer\thead\ttokens\tpage");
      List<Map3> page = new ArrayList<>();
      AttentionTrace trace = null;
      String traced = null;
      int pageNo = 1;
      for (Item it : items) {
        if (!it.input().id().equals(traced)) {
          trace = model.trace(model.encode(it.input().a(), it.input().b()));
          traced = it.input().id();
          if (trace.tokens().size() != it.input().wordpieces()) {
            throw new IllegalStateException(it.input().id() + ": " + trace.tokens().size() + " wordpieces, inputs-3.tsv says "
                + it.input().wordpieces());
          }
        }
        String pageFile = String.format("page-%03d.png", pageNo);
        String hl = "L" + (it.head().layer() + 1) + "-H" + (it.head().head() + 1);
        page.add(new Map3(it.id(), 0, trace.tokens(), trace.encoding().secondStart(), trace.map(it.head()),
            showHead ? hl : null));
        manifest.add(String.join("\t", it.id(), it.input().id(), it.input().kind(), String.valueOf(it.head().layer() + 1),
            String.valueOf(it.head().head() + 1), String.valueOf(trace.tokens().size()), pageFile));
        if (page.size() == perPage) {
          ImageIO.write(renderPage(page), "png", out.resolve(pageFile).toFile());
          page.clear();
          pageNo++;
        }
      }
      if (!page.isEmpty()) {
        ImageIO.write(renderPage(page), "png", out.resolve(String.format("page-%03d.png", pageNo)).toFile());
      } else {
        pageNo--;
      }
      Files.write(out.resolve("manifest.tsv"), manifest, StandardCharsets.UTF_8);
      System.out.println(items.size() + " maps of " + items.stream().map(i -> i.input().id()).distinct().count()
          + " inputs on " + pageNo + " pages in " + out);
    }
  }

  static List<Input> inputs() throws IOException {
    try (InputStream in = RenderLongMaps.class.getResourceAsStream("/headscope/labels/inputs-3.tsv")) {
      List<Input> out = new ArrayList<>();
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        String[] f = line.split("\t", -1);
        if (line.isBlank() || f[0].equals("id")) {
          continue;
        }
        out.add(new Input(f[0], f[1], f[2], f[1].equals("pair") ? f[3] : null, Integer.parseInt(f[4])));
      }
      return out;
    }
  }

  /** Per input, ten distinct layers (ascending) and a random head in each; ids in order inputs x layers. */
  static List<Item> choose(List<Input> inputs) {
    Random random = new Random(SEED);
    List<Item> items = new ArrayList<>();
    for (Input in : inputs) {
      List<Integer> layers = new ArrayList<>();
      for (int l = 0; l < 12; l++) {
        layers.add(l);
      }
      Collections.shuffle(layers, random);
      List<Integer> chosen = new ArrayList<>(layers.subList(0, LAYERS_PER_INPUT));
      Collections.sort(chosen);
      for (int layer : chosen) {
        items.add(new Item(String.format("p%03d", items.size() + 1), in, new Head(layer, random.nextInt(12))));
      }
    }
    return items;
  }

  /** Maximum over each block x block square (the last block may be smaller). */
  static float[][] maxPool(float[][] map, int block) {
    int n = map.length;
    int cells = (n + block - 1) / block;
    float[][] out = new float[cells][cells];
    for (int q = 0; q < n; q++) {
      for (int k = 0; k < n; k++) {
        float v = map[q][k];
        if (v > out[q / block][k / block]) {
          out[q / block][k / block] = v;
        }
      }
    }
    return out;
  }

  static BufferedImage renderPage(List<Map3> maps) {
    BufferedImage img = new BufferedImage(COLUMNS * BLOCK_W, ROWS * BLOCK_H, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, img.getWidth(), img.getHeight());
    g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
    for (int i = 0; i < maps.size(); i++) {
      drawMap(g, maps.get(i), (i % COLUMNS) * BLOCK_W, (i / COLUMNS) * BLOCK_H);
    }
    g.setColor(Color.LIGHT_GRAY);
    g.drawLine(BLOCK_W, 0, BLOCK_W, img.getHeight());
    g.drawLine(0, BLOCK_H, img.getWidth(), BLOCK_H);
    g.dispose();
    return img;
  }

  static void drawMap(Graphics2D g, Map3 m, int x0, int y0) {
    int n = m.tokens().size();
    int block = (n + MAX_CELLS - 1) / MAX_CELLS;
    float[][] pooled = maxPool(m.map(), block);
    int cells = pooled.length;
    int px = Math.max(1, PANEL / cells);
    float max = 0;
    for (float[] row : pooled) {
      for (float v : row) {
        max = Math.max(max, v);
      }
    }
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 20));
    String title = m.id() + "   n = " + n + (m.headLabel() != null ? "   " + m.headLabel() : "");
    g.drawString(title, x0 + 10, y0 + 22);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    String pool = block > 1 ? "max-pooled " + block + "x" + block : "1 cell = 1 position";
    g.drawString("linear to max (" + pool + ")", x0 + LEFT, y0 + 46);
    g.drawString("gamma: (value/max)^0.5", x0 + LEFT + PANEL + GAP, y0 + 46);
    drawPanel(g, m, pooled, max, 1.0, block, px, x0 + LEFT, y0 + TOP);
    drawPanel(g, m, pooled, max, GAMMA, block, px, x0 + LEFT + PANEL + GAP, y0 + TOP);
  }

  static void drawPanel(Graphics2D g, Map3 m, float[][] pooled, float max, double gamma, int block, int px, int gx, int gy) {
    int n = m.tokens().size();
    int cells = pooled.length;
    int side = cells * px;
    for (int q = 0; q < cells; q++) {
      for (int k = 0; k < cells; k++) {
        double t = max > 0 ? pooled[q][k] / max : 0;
        if (gamma != 1.0) {
          t = Math.pow(t, gamma);
        }
        g.setColor(shade(t));
        g.fillRect(gx + k * px, gy + q * px, px, px);
      }
    }
    g.setColor(Color.GRAY);
    g.setStroke(new BasicStroke(1f));
    g.drawRect(gx - 1, gy - 1, side + 1, side + 1);
    // strips outside the cells: segment b bar (pairs), red ticks at [CLS] and every [SEP]
    int sx = gy - 2 - STRIP;
    int sy = gx - 2 - STRIP;
    if (m.secondStart() > 0) {
      int b0 = (m.secondStart() / block) * px;
      g.setColor(new Color(255, 170, 60));
      g.fillRect(gx + b0, sx + STRIP / 2, side - b0, STRIP / 2);
      g.fillRect(sy + STRIP / 2, gy + b0, STRIP / 2, side - b0);
    }
    g.setColor(Color.RED);
    g.setStroke(new BasicStroke(2f));
    for (int i = 0; i < n; i++) {
      String tok = m.tokens().get(i);
      if (tok.equals("[CLS]") || tok.equals("[SEP]")) {
        int c = (i / block) * px + px / 2;
        g.drawLine(gx + c, sx, gx + c, sx + STRIP);
        g.drawLine(sy, gy + c, sy + STRIP, gy + c);
      }
    }
    // ticks every 32 (n <= 256) or 64 positions, outside the strips
    int step = n <= 256 ? 32 : 64;
    g.setColor(Color.DARK_GRAY);
    g.setStroke(new BasicStroke(1f));
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    for (int p = 0; p < n; p += step) {
      int c = (p / block) * px;
      g.drawLine(gx + c, sx - 4, gx + c, sx);
      g.drawLine(sy - 4, gy + c, sy, gy + c);
      String s = String.valueOf(p);
      int w = g.getFontMetrics().stringWidth(s);
      g.drawString(s, gx + c - w / 2, sx - 6);
      g.drawString(s, sy - 6 - w, gy + c + 4);
    }
  }

  /** White to dark blue, as sets 1 and 2. */
  static Color shade(double t) {
    int r = (int) Math.round(255 * (1 - t));
    int gr = (int) Math.round(255 - t * (255 - 20));
    int b = (int) Math.round(255 - t * (255 - 110));
    return new Color(clamp(r), clamp(gr), clamp(b));
  }

  private static int clamp(int v) {
    return Math.max(0, Math.min(255, v));
  }

  private RenderLongMaps() {}
}
