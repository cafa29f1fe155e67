package io.headscope.labels;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ProgressListener;
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
 * Issue 32's check of the earlier labels against the written definition: a random sample of the maps of
 * sets 1 and 2 (seed {@link #SEED}, {@link #SIZE} maps), renamed {@code r001}.. so a labeller cannot tell
 * which map of which set it is, drawn as set 3 was ({@link RenderLongMaps}: two panels, ticks at
 * {@code [CLS]}/{@code [SEP]}, the pair's second segment marked; four a page) for labellers working blind
 * under {@code GUIDELINES-3.md}. Writes page-NNN.png and manifest.tsv (r-id, set, original id, layer, head,
 * tokens, page; no labels).
 *
 * <p>Usage: {@code java -Djava.awt.headless=true -cp <test classpath> io.headscope.labels.RenderRelabelSample OUT_DIR
 * [rest]}; with {@code rest}, the other maps of sets 1 and 2 (the same shuffle past the sample, ids from
 * {@code r201}), for relabelling them all.
 */
public final class RenderRelabelSample {
  static final long SEED = 20261127L;
  static final int SIZE = 200;

  record Source(String set, String id, String a, String b, int layer, int head) {}

  private RenderRelabelSample() {}

  public static void main(String[] args) throws IOException {
    Path out = Path.of(args[0]);
    Files.createDirectories(out);
    List<Source> all = new ArrayList<>();
    all.addAll(read("1", "/headscope/labels/kovaleva-labels.tsv"));
    all.addAll(read("2", "/headscope/labels/kovaleva-labels-2.tsv"));
    Collections.shuffle(all, new Random(SEED));
    boolean rest = args.length > 1 && args[1].equals("rest");
    List<Source> sample = new ArrayList<>(rest ? all.subList(SIZE, all.size()) : all.subList(0, SIZE));
    int firstNumber = rest ? SIZE + 1 : 1;
    // drawn input by input (one forward pass each), in the sample's order of first appearance
    Map<String, Integer> first = new HashMap<>();
    for (int i = 0; i < sample.size(); i++) {
      first.putIfAbsent(sample.get(i).a() + "\t" + sample.get(i).b(), i);
    }
    sample.sort((x, y) -> Integer.compare(first.get(x.a() + "\t" + x.b()), first.get(y.a() + "\t" + y.b())));
    try (BertModel model = BertModel.load(ModelRepository.standard().resolve("bert-base-uncased", ProgressListener.NONE))) {
      List<String> manifest = new ArrayList<>();
      manifest.add("id\tset\toriginal_id\tlayer\thead\ttokens\tpage");
      List<RenderLongMaps.Map3> page = new ArrayList<>();
      int pageNo = 1;
      for (int i = 0; i < sample.size(); i++) {
        Source s = sample.get(i);
        AttentionTrace t = model.trace(model.encode(s.a(), s.b()));
        String id = String.format("r%03d", firstNumber + i);
        String pageFile = String.format("page-%03d.png", pageNo);
        page.add(new RenderLongMaps.Map3(id, 0, t.tokens(), t.encoding().secondStart(), t.map(new Head(s.layer(), s.head())),
            null));
        manifest.add(String.join("\t", id, s.set(), s.id(), String.valueOf(s.layer() + 1), String.valueOf(s.head() + 1),
            String.valueOf(t.tokens().size()), pageFile));
        if (page.size() == RenderLongMaps.COLUMNS * RenderLongMaps.ROWS || i == sample.size() - 1) {
          ImageIO.write(RenderLongMaps.renderPage(page), "png", out.resolve(pageFile).toFile());
          page.clear();
          pageNo++;
        }
      }
      Files.write(out.resolve("manifest.tsv"), manifest, StandardCharsets.UTF_8);
      System.out.println(sample.size() + " maps on " + (pageNo - 1) + " pages in " + out);
    }
  }

  private static List<Source> read(String set, String resource) throws IOException {
    List<Source> out = new ArrayList<>();
    try (InputStream in = RenderRelabelSample.class.getResourceAsStream(resource)) {
      String[] lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n");
      for (int i = 1; i < lines.length; i++) {
        if (lines[i].isBlank()) {
          continue;
        }
        String[] f = lines[i].split("\t", -1);
        out.add(new Source(set, f[0], f[2], f[1].equals("pair") ? f[3] : null, Integer.parseInt(f[4]) - 1,
            Integer.parseInt(f[5]) - 1));
      }
    }
    return out;
  }
}
