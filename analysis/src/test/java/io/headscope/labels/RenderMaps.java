package io.headscope.labels;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ProgressListener;
import io.headscope.model.tokenizer.Encoding;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.AffineTransform;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import javax.imageio.ImageIO;

/**
 * Renders the maps of the hand-labelled Kovaleva set as heatmap pages, so a person can label them by
 * eye (see resources/.../headscope/labels/README.md). Not a test: a main class kept in test scope
 * because it is a one-off tool for making the labels, not part of the product.
 *
 * <p>Usage: {@code java -Djava.awt.headless=true -cp <test classpath> io.headscope.labels.RenderMaps
 * /tmp/label-pages}. Writes page-NN.png and manifest.tsv (the maps without labels).
 */
public final class RenderMaps {

  /** Fixed so the chosen heads, and therefore the ids, are the same on every run. */
  private static final long SEED = 20261121L;
  private static final int LAYERS_PER_INPUT = 10;
  private static final int COLUMNS = 3;
  private static final int MAPS_PER_PAGE = 9;
  private static final int PANEL = 500;
  private static final int AXIS = 70;
  private static final int TITLE = 22;

  private static final String[] SINGLES = {
    "The cat slept on the warm windowsill all afternoon.",
    "After the meeting, she walked home through the quiet park.",
    "Rain fell steadily, and the river rose above its banks by morning.",
    "He bought bread, cheese and apples at the market.",
    "Although the morning train was forty minutes late, nobody on the crowded platform seemed annoyed, and several commuters were quietly reading newspapers.",
    "My grandmother grew tomatoes, beans and squash in her small garden behind the house.",
    "The museum opens at nine.",
    "Scientists measured the temperature of the lake every hour for three weeks.",
    "When the power went out, the children lit candles and told stories until midnight.",
    "Please close the door quietly.",
    "The committee, after a long debate, finally approved the new budget for the library.",
    "Birds were singing loudly in the old oak tree outside my window this morning.",
  };

  private static final String[][] PAIRS = {
    {"The dog chased the ball.", "It ran across the yard."},
    {"Where did you park the car?", "I left it near the station."},
    {"The store closes early on Sundays.", "We should buy groceries on Saturday instead."},
    {"She studied medicine in Boston for six years.", "Now she works as a surgeon in a large hospital."},
    {"Is the concert tonight?", "Yes, it starts at eight."},
    {"The bridge was closed for repairs last month.", "Drivers had to take a long detour through the hills."},
    {"A man is playing a guitar on the street.", "A musician performs outdoors."},
    {"How do I reset my password?", "Click the link on the login page and follow the steps."},
    {"The weather was cold and windy.", "Still, many runners finished the race."},
    {"Tom forgot his umbrella at the office on Tuesday evening.", "He got completely soaked walking to the bus stop, and his new leather shoes were ruined by the rain."},
    {"The company reported higher profits this year.", "Its shares rose sharply after the announcement."},
    {"Can you recommend a good book?", "I enjoyed a novel about a sailor lost at sea."},
  };

  /** One map to label: the input and the (0-based) head. */
  record Item(String id, String a, String b, Head head) {}

  public static void main(String[] args) throws IOException {
    Path out = Path.of(args.length > 0 ? args[0] : "/tmp/label-pages");
    Files.createDirectories(out);
    List<Item> items = choose();
    ModelRepository repo = ModelRepository.standard();
    try (BertModel model = BertModel.load(repo.resolve("bert-base-uncased", ProgressListener.NONE))) {
      List<String> manifest = new ArrayList<>();
      manifest.add("id\tkind\ttext_a\ttext_b\tlayer\thead\ttokens");
      List<Panel> panels = new ArrayList<>();
      String lastKey = null;
      AttentionTrace trace = null;
      for (Item item : items) {
        String key = item.a() + "\t" + item.b();
        if (!key.equals(lastKey)) {
          trace = model.trace(model.encode(item.a(), item.b()));
          lastKey = key;
        }
        Encoding enc = trace.encoding();
        panels.add(new Panel(item.id() + "  (L" + (item.head().layer() + 1) + " H" + (item.head().head() + 1) + ")",
            enc.tokens(), enc.secondStart(), trace.map(item.head())));
        manifest.add(String.join("\t", item.id(), item.b() == null ? "single" : "pair", item.a(),
            item.b() == null ? "" : item.b(), String.valueOf(item.head().layer() + 1),
            String.valueOf(item.head().head() + 1), String.valueOf(enc.tokens().size())));
      }
      Files.write(out.resolve("manifest.tsv"), manifest, StandardCharsets.UTF_8);
      for (int p = 0; p * MAPS_PER_PAGE < panels.size(); p++) {
        List<Panel> page = panels.subList(p * MAPS_PER_PAGE, Math.min(panels.size(), (p + 1) * MAPS_PER_PAGE));
        ImageIO.write(renderPage(page), "png", out.resolve(String.format("page-%02d.png", p + 1)).toFile());
      }
      System.out.println(items.size() + " maps on " + ((panels.size() + MAPS_PER_PAGE - 1) / MAPS_PER_PAGE)
          + " pages in " + out);
    }
  }

  /** Per input, ten distinct layers (so each layer appears about 20 times) and a random head in each. */
  static List<Item> choose() {
    Random random = new Random(SEED);
    List<String[]> inputs = new ArrayList<>();
    for (String s : SINGLES) {
      inputs.add(new String[] {s, null});
    }
    for (String[] p : PAIRS) {
      inputs.add(p);
    }
    List<Item> items = new ArrayList<>();
    int n = 0;
    for (String[] input : inputs) {
      List<Integer> layers = new ArrayList<>();
      for (int l = 0; l < 12; l++) {
        layers.add(l);
      }
      Collections.shuffle(layers, random);
      List<Integer> chosen = new ArrayList<>(layers.subList(0, LAYERS_PER_INPUT));
      Collections.sort(chosen);
      for (int layer : chosen) {
        items.add(new Item(String.format("m%03d", ++n), input[0], input[1], new Head(layer, random.nextInt(12))));
      }
    }
    return items;
  }

  record Panel(String title, List<String> tokens, int secondStart, float[][] map) {}

  static BufferedImage renderPage(List<Panel> panels) {
    int rows = (panels.size() + COLUMNS - 1) / COLUMNS;
    int w = COLUMNS * PANEL;
    int h = rows * PANEL;
    BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, w, h);
    g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
    for (int i = 0; i < panels.size(); i++) {
      drawPanel(g, panels.get(i), (i % COLUMNS) * PANEL, (i / COLUMNS) * PANEL);
    }
    g.dispose();
    return img;
  }

  /** White to dark blue, scaled to the map's own maximum (as matplotlib's imshow does by default). */
  static void drawPanel(Graphics2D g, Panel p, int x0, int y0) {
    drawPanel(g, p, x0, y0, PANEL);
  }

  static void drawPanel(Graphics2D g, Panel p, int x0, int y0, int panel) {
    int n = p.tokens().size();
    int cell = Math.max(1, (panel - AXIS - TITLE - 10) / n);
    int gx = x0 + AXIS;
    int gy = y0 + TITLE + AXIS;
    float max = 0;
    for (float[] row : p.map()) {
      for (float v : row) {
        max = Math.max(max, v);
      }
    }
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
    g.drawString(p.title(), x0 + 8, y0 + 16);
    for (int q = 0; q < n; q++) {
      for (int k = 0; k < n; k++) {
        float t = max > 0 ? p.map()[q][k] / max : 0;
        int r = Math.round(255 * (1 - t));
        int gr = Math.round(255 - t * (255 - 20));
        int b = Math.round(255 - t * (255 - 110));
        g.setColor(new Color(r, Math.max(0, Math.min(255, gr)), b));
        g.fillRect(gx + k * cell, gy + q * cell, cell, cell);
      }
    }
    g.setColor(Color.GRAY);
    g.setStroke(new BasicStroke(1f));
    g.drawRect(gx, gy, n * cell, n * cell);
    if (p.secondStart() > 0) {
      g.setColor(Color.RED);
      int s = p.secondStart() * cell;
      g.drawLine(gx + s, gy, gx + s, gy + n * cell);
      g.drawLine(gx, gy + s, gx + n * cell, gy + s);
    }
    g.setColor(Color.BLACK);
    Font small = new Font(Font.SANS_SERIF, Font.PLAIN, Math.min(10, Math.max(7, cell - 2)));
    g.setFont(small);
    for (int i = 0; i < n; i++) {
      String tok = shorten(p.tokens().get(i));
      int tw = g.getFontMetrics().stringWidth(tok);
      g.drawString(tok, gx - tw - 3, gy + i * cell + cell - 2);
      AffineTransform saved = g.getTransform();
      g.translate(gx + i * cell + cell - 2, gy - 3);
      g.rotate(-Math.PI / 2);
      g.drawString(tok, 0, 0);
      g.setTransform(saved);
    }
  }

  private static String shorten(String token) {
    return token.length() > 11 ? token.substring(0, 10) + "…" : token;
  }

  private RenderMaps() {}
}
