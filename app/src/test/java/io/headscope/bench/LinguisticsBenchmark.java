package io.headscope.bench;

import io.headscope.analysis.linguistics.ConlluReader;
import io.headscope.analysis.linguistics.CorefHeads;
import io.headscope.analysis.linguistics.SyntaxAnalysis;
import io.headscope.analysis.linguistics.Treebank;
import io.headscope.analysis.linguistics.WordMaps;
import io.headscope.model.BertModel;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ProgressListener;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * {@code ./headscope bench syntax [N] [FILE]} and {@code ./headscope bench coref [DOCS] [FILE]}: the
 * issue's speed targets on bert-base-uncased (2,000 sentences through {@code syntax} under 2 minutes;
 * {@code coref} on 30 documents under 3 minutes). The input is made from HeadScope's own hand-annotated
 * test treebanks, never a published one: their sentences (or documents) repeated in seeded shuffled
 * order until there are enough, written as a CoNLL-U file and timed from reading it to the scores.
 */
public final class LinguisticsBenchmark {
  static final Path TREEBANKS = Path.of("analysis", "src", "test", "resources", "treebanks");

  public static void main(String[] args) throws IOException {
    boolean coref = args.length > 0 && args[0].equals("coref");
    int n = args.length > 1 ? Integer.parseInt(args[1]) : coref ? 30 : 2000;
    Path source = args.length > 2 ? Path.of(args[2]) : TREEBANKS.resolve(coref ? "coref.conllu" : "syntax.conllu");
    Path file = Files.createTempFile("headscope-bench-", ".conllu");
    try {
      String text = coref ? documents(Files.readString(source), n) : sentences(Files.readString(source), n);
      Files.writeString(file, text, StandardCharsets.UTF_8);
      try (BertModel model = BertModel.load(
          ModelRepository.standard().resolve(ModelRepository.DEFAULT_MODEL, ProgressListener.NONE))) {
        System.out.printf(Locale.ROOT, "%s: %d %s made from %s, %d cores, load average %.2f%n", coref ? "coref" : "syntax",
            n, coref ? "documents" : "sentences", source.getFileName(), Runtime.getRuntime().availableProcessors(),
            CorpusBenchmark.load());
        long t0 = System.nanoTime();
        Treebank tb = ConlluReader.read(file);
        if (coref) {
          CorefHeads.Result r = CorefHeads.run(model, tb, 128, WordMaps.Progress.NONE, () -> false);
          double s = (System.nanoTime() - t0) / 1e9;
          System.out.printf(Locale.ROOT, "coref: %d documents, %d sentences, %d windows, %d mentions evaluated: "
                  + "%.1f s (target under 180 s); load average after %.2f%n",
              tb.sentences().stream().map(x -> x.document()).distinct().count(), tb.sentences().size(), r.windows(),
              r.mentions()[0], s, CorpusBenchmark.load());
        } else {
          SyntaxAnalysis.Result r = SyntaxAnalysis.run(model, tb, 0, false, WordMaps.Progress.NONE, () -> false);
          double s = (System.nanoTime() - t0) / 1e9;
          System.out.printf(Locale.ROOT, "syntax: %d sentences, %d words: %.1f s, %.0f sentences/s (target under 120 s); "
              + "load average after %.2f%n", r.sentences(), r.words(), s, r.sentences() / s, CorpusBenchmark.load());
        }
      }
    } finally {
      Files.deleteIfExists(file);
    }
  }

  /** {@code n} sentences: the file's sentence blocks in seeded shuffled rounds, renumbered. */
  static String sentences(String conllu, int n) {
    List<String> blocks = blocks(conllu);
    StringBuilder b = new StringBuilder();
    Random random = new Random(15);
    List<String> round = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (round.isEmpty()) {
        round.addAll(blocks);
        Collections.shuffle(round, random);
      }
      String block = round.remove(round.size() - 1).replaceAll("(?m)^# sent_id = .*$", "# sent_id = bench-" + i)
          .replaceAll("(?m)^# newdoc.*\n", "");
      b.append(block).append("\n\n");
    }
    return b.toString();
  }

  /** {@code n} documents: the file's documents in seeded shuffled rounds, each copy with an id of its own. */
  static String documents(String conllu, int n) {
    List<String> docs = new ArrayList<>();
    StringBuilder current = null;
    for (String block : blocks(conllu)) {
      if (block.contains("# newdoc") || current == null) {
        if (current != null) {
          docs.add(current.toString());
        }
        current = new StringBuilder();
      }
      current.append(block.replaceAll("(?m)^# newdoc.*\n", "")).append("\n\n");
    }
    docs.add(current.toString());
    Random random = new Random(15);
    List<String> round = new ArrayList<>();
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < n; i++) {
      if (round.isEmpty()) {
        round.addAll(docs);
        Collections.shuffle(round, random);
      }
      b.append("# newdoc id = bench-").append(i).append('\n').append(round.remove(round.size() - 1));
    }
    return b.toString();
  }

  private static List<String> blocks(String conllu) {
    List<String> out = new ArrayList<>();
    for (String block : conllu.replace("\r\n", "\n").split("\n\\s*\n")) {
      if (block.lines().anyMatch(l -> !l.isBlank() && !l.startsWith("#"))) {
        out.add(block.strip());
      }
    }
    return out;
  }
}
