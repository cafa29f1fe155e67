package io.headscope.labels;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ProgressListener;
import java.awt.Color;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import javax.imageio.ImageIO;

/**
 * Renders the second Kovaleva label set (issue 14) as pages for two independent labellers: the
 * inputs of {@code labels/inputs-2026-11-23.tsv}, ten random layers per input with a random head in
 * each, plus one extra map per pair at a head where the first set found blocks and one per single at
 * a head where it found diagonals (so block and diagonal can be measured; chosen from the first set's
 * hand labels, never from the classifier). Maps are shuffled and titled only by their id, so nothing
 * on a page hints at a layer, a head or a category. Same drawing as {@link RenderMaps}.
 *
 * <p>Usage: {@code java -Djava.awt.headless=true -cp <test classpath> io.headscope.labels.RenderLabelSet
 * OUT_DIR}. Writes page-NNN.png and manifest.tsv (id, kind, texts, layer, head, tokens, how chosen).
 */
public final class RenderLabelSet {
  static final long SEED = 20261123L;
  static final int LAYERS_PER_INPUT = 10;
  /** Heads the first set's labeller called block (1-based), where pairs get one extra map each. */
  static final String[] BLOCK_PRONE = {"1-1", "1-2", "1-12", "2-9", "3-6", "5-2", "9-8"};
  /** Heads the first set's labeller called diagonal, where singles get one extra map each. */
  static final String[] DIAGONAL_PRONE = {"1-4", "1-11", "2-5", "2-12", "3-1", "3-7", "3-10", "12-9"};
  static final int COLUMNS = 3;
  static final int ROWS = 2;
  static final int PANEL = 620;

  record Item(String a, String b, Head head, String chosen) {}

  public static void main(String[] args) throws IOException {
    Path out = Path.of(args.length > 0 ? args[0] : "/tmp/label-set-2");
    Files.createDirectories(out);
    List<Item> items = choose(inputs());
    try (BertModel model = BertModel.load(ModelRepository.standard().resolve("bert-base-uncased", ProgressListener.NONE))) {
      Map<String, AttentionTrace> traces = new HashMap<>();
      List<String> manifest = new ArrayList<>();
      manifest.add("id\tkind\ttext_a\ttext_b\tlayer\thead\ttokens\tchosen");
      List<RenderMaps.Panel> panels = new ArrayList<>();
      for (int i = 0; i < items.size(); i++) {
        Item it = items.get(i);
        String id = String.format("n%03d", i + 1);
        AttentionTrace t = traces.computeIfAbsent(it.a() + "\t" + it.b(), k -> model.trace(model.encode(it.a(), it.b())));
        panels.add(new RenderMaps.Panel(id, t.tokens(), t.encoding().secondStart(), t.map(it.head())));
        manifest.add(String.join("\t", id, it.b() == null ? "single" : "pair", it.a(), it.b() == null ? "" : it.b(),
            String.valueOf(it.head().layer() + 1), String.valueOf(it.head().head() + 1),
            String.valueOf(t.tokens().size()), it.chosen()));
      }
      Files.write(out.resolve("manifest.tsv"), manifest, StandardCharsets.UTF_8);
      int perPage = COLUMNS * ROWS;
      for (int p = 0; p * perPage < panels.size(); p++) {
        List<RenderMaps.Panel> page = panels.subList(p * perPage, Math.min(panels.size(), (p + 1) * perPage));
        ImageIO.write(render(page), "png", out.resolve(String.format("page-%03d.png", p + 1)).toFile());
      }
      System.out.println(items.size() + " maps from " + traces.size() + " inputs on "
          + (panels.size() + perPage - 1) / perPage + " pages in " + out);
    }
  }

  static List<String[]> inputs() throws IOException {
    try (InputStream in = RenderLabelSet.class.getResourceAsStream("/headscope/labels/inputs-2026-11-23.tsv")) {
      List<String[]> out = new ArrayList<>();
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        String[] f = line.split("\t", -1);
        if (f[0].equals("kind") || line.isBlank()) {
          continue;
        }
        out.add(new String[] {f[1], f[0].equals("pair") ? f[2] : null});
      }
      return out;
    }
  }

  static List<Item> choose(List<String[]> inputs) {
    Random random = new Random(SEED);
    List<Item> items = new ArrayList<>();
    for (String[] in : inputs) {
      List<Integer> layers = new ArrayList<>();
      for (int l = 0; l < 12; l++) {
        layers.add(l);
      }
      Collections.shuffle(layers, random);
      List<Head> chosen = new ArrayList<>();
      for (int layer : layers.subList(0, LAYERS_PER_INPUT)) {
        chosen.add(new Head(layer, random.nextInt(12)));
      }
      for (Head h : chosen) {
        items.add(new Item(in[0], in[1], h, "random"));
      }
      String[] prone = in[1] != null ? BLOCK_PRONE : DIAGONAL_PRONE;
      Head extra;
      do {
        extra = Head.parseList(prone[random.nextInt(prone.length)], 12, 12).iterator().next();
      } while (chosen.contains(extra));
      items.add(new Item(in[0], in[1], extra, in[1] != null ? "block-prone" : "diagonal-prone"));
    }
    Collections.shuffle(items, random);
    return items;
  }

  static BufferedImage render(List<RenderMaps.Panel> panels) {
    BufferedImage img = new BufferedImage(COLUMNS * PANEL, ROWS * PANEL, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, img.getWidth(), img.getHeight());
    g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
    for (int i = 0; i < panels.size(); i++) {
      RenderMaps.drawPanel(g, panels.get(i), (i % COLUMNS) * PANEL, (i / COLUMNS) * PANEL, PANEL);
    }
    g.dispose();
    return img;
  }

  private RenderLabelSet() {}
}
