package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.analysis.linguistics.ConlluReader;
import io.headscope.analysis.linguistics.CorefHeads;
import io.headscope.analysis.linguistics.DependencyHeads;
import io.headscope.analysis.linguistics.LinguisticsRun;
import io.headscope.analysis.linguistics.SyntaxAnalysis;
import io.headscope.analysis.linguistics.SyntaxCsv;
import io.headscope.analysis.linguistics.Treebank;
import io.headscope.analysis.linguistics.WordMaps;
import io.headscope.app.gui.exec.DirectWorker;
import io.headscope.app.gui.linguistics.LinguisticsViewModel;
import io.headscope.app.gui.linguistics.RelationChoice;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.model.core.Head;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Linguistics screen's numbers are SyntaxAnalysis's and CorefHeads's on the hand-annotated test
 * treebanks (analysis/src/test/resources/treebanks) with a tiny model; a bad file changes nothing.
 */
class LinguisticsViewModelTest {
  static final Path TREEBANKS = Path.of("..", "analysis", "src", "test", "resources", "treebanks");
  @TempDir static Path dir;
  static MainViewModel main;

  @BeforeAll
  static void load() {
    Path tiny = TinyBert.create(2, 3, 7).writeTo(dir.resolve("tiny")).config().getParent();
    main = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    main.textAProperty().set("the cat sat .");
    main.loadModel(tiny.toString());
  }

  @Test
  void theGridAndBestHeadsEqualSyntaxAnalysisOnTheSyntaxTreebank() throws Exception {
    LinguisticsViewModel vm = new LinguisticsViewModel(main.session());
    Path file = TREEBANKS.resolve("syntax.conllu");
    vm.open(file);
    assertThat(vm.statusProperty().get()).contains("sentences").doesNotContain("Could not");
    Treebank tb = ConlluReader.read(file);
    SyntaxAnalysis.Result expected = SyntaxAnalysis.run(main.session().model(), tb, 0, false,
        WordMaps.Progress.NONE, () -> false);
    DependencyHeads d = expected.heads();

    // with rare relations shown, every relation but root is listed, "all" first
    vm.showRareProperty().set(true);
    List<RelationChoice> relations = vm.relations();
    assertThat(relations.get(0).relation()).isEqualTo("all");
    assertThat(relations.get(0).count()).isEqualTo(expected.words());
    assertThat(relations).extracting(RelationChoice::relation).contains("det", "obj", "nmod:poss")
        .doesNotContain(RelationChoice.COREFERENCE, "root");
    assertThat(vm.best()).isEqualTo(d.best().stream().filter(b -> !b.relation().equals("root")).toList());
    for (RelationChoice c : List.of(relations.get(0), choice(vm, "det"), choice(vm, "obj"))) {
      vm.chosenProperty().set(c);
      double[][] g = vm.grid();
      assertThat(g).hasNumberOfRows(2);
      for (int l = 0; l < 2; l++) {
        for (int h = 0; h < 3; h++) {
          assertThat(g[l][h]).as("%s %d-%d", c.relation(), l + 1, h + 1).isEqualTo(Math.max(
              d.accuracy(c.relation(), l, h, DependencyHeads.Direction.DEP_TO_HEAD),
              d.accuracy(c.relation(), l, h, DependencyHeads.Direction.HEAD_TO_DEP)));
        }
      }
    }

    // a click opens the head on the first sentence with a det, gold arcs and picks beside it
    vm.chosenProperty().set(choice(vm, "det"));
    vm.open(new Head(1, 2));
    assertThat(main.session().selected()).isEqualTo(new Head(1, 2));
    var on = vm.sentenceProperty().get();
    assertThat(on).isNotNull();
    assertThat(on.words()).startsWith("[CLS]").endsWith("[SEP]").hasSize(on.sentence().size() + 2);
    assertThat(on.sentence().words()).anyMatch(w -> w.deprel().equals("det"));
    assertThat(vm.sentenceStatusProperty().get()).contains("Head 2-3", "det");

    // the CSVs are the CLI's
    Path csv = dir.resolve("relations.csv");
    assertThat(LinguisticsViewModel.writeCsvs(vm.resultProperty().get(), csv)).hasSize(2);
    assertThat(Files.readAllLines(dir.resolve("relations-best.csv")).get(0)).isEqualTo(String.join(",", SyntaxCsv.BEST_HEADER));
    // the CSVs hold every relation, root and the rare ones included
    assertThat(Files.readAllLines(csv)).hasSize(1 + d.best().size() * 2 * 3 * 2);
    assertThat(vm.figure()).isNotNull();
  }

  @Test
  void rareRelationsAndRootAreLeftOutOfTheListUnlessAskedAndSaySo() throws Exception {
    LinguisticsViewModel vm = new LinguisticsViewModel(main.session());
    Path file = TREEBANKS.resolve("syntax.conllu");
    vm.open(file);
    // each relation's word count from the analysis the CLI runs (sentences longer than the tiny model's
    // positions are skipped there, so the file's own counts are higher)
    java.util.Map<String, Long> counts = new java.util.TreeMap<>();
    SyntaxAnalysis.run(main.session().model(), ConlluReader.read(file), 0, false, WordMaps.Progress.NONE, () -> false)
        .heads().best().forEach(b -> counts.put(b.relation(), b.count()));
    long all = counts.remove("all");
    List<String> frequent = counts.entrySet().stream()
        .filter(e -> e.getValue() >= LinguisticsViewModel.MIN_WORDS && !e.getKey().equals("root"))
        .map(java.util.Map.Entry::getKey).toList();
    long rare = counts.entrySet().stream()
        .filter(e -> e.getValue() < LinguisticsViewModel.MIN_WORDS && !e.getKey().equals("root")).count();
    assertThat(rare).as("the test treebank has rare relations").isPositive();
    assertThat(counts).containsKey("root");

    assertThat(vm.relations()).extracting(RelationChoice::relation)
        .containsExactlyInAnyOrderElementsOf(concat("all", frequent));
    assertThat(vm.best()).extracting(DependencyHeads.Best::relation).containsExactlyInAnyOrderElementsOf(concat("all", frequent));
    assertThat(vm.best()).allSatisfy(b -> assertThat(b.count()).isEqualTo(
        b.relation().equals("all") ? all : counts.get(b.relation())));
    assertThat(vm.hiddenProperty().get()).contains("root", rare + " relation", "fewer than " + LinguisticsViewModel.MIN_WORDS);

    // a chosen relation survives showing the rare ones, and falls back to "all" when hidden again
    vm.chosenProperty().set(choice(vm, frequent.get(0)));
    vm.showRareProperty().set(true);
    assertThat(vm.chosenProperty().get().relation()).isEqualTo(frequent.get(0));
    assertThat(vm.relations()).hasSize(1 + frequent.size() + (int) rare);
    assertThat(vm.hiddenProperty().get()).contains("root").doesNotContain("fewer than");
    String rareOne = counts.entrySet().stream().filter(e -> e.getValue() < LinguisticsViewModel.MIN_WORDS
        && !e.getKey().equals("root")).findFirst().orElseThrow().getKey();
    vm.chosenProperty().set(choice(vm, rareOne));
    vm.showRareProperty().set(false);
    assertThat(vm.chosenProperty().get().relation()).isEqualTo("all");
  }

  @Test
  void aSecondFileClearsTheFirstFilesSentencePanel() {
    LinguisticsViewModel vm = new LinguisticsViewModel(main.session());
    vm.open(TREEBANKS.resolve("syntax.conllu"));
    vm.open(new Head(0, 1));
    assertThat(vm.sentenceProperty().get()).isNotNull();
    assertThat(vm.sentenceStatusProperty().get()).contains("Head 1-2");

    vm.open(TREEBANKS.resolve("coref.conllu"));
    assertThat(vm.statusProperty().get()).contains("coref.conllu");
    assertThat(vm.sentenceProperty().get()).isNull();
    assertThat(vm.sentenceStatusProperty().get()).isEmpty();
  }

  /** A worker that holds the work given to it until released: a job can be caught running. */
  static final class HeldWorker implements io.headscope.app.gui.exec.Worker {
    private final java.util.ArrayDeque<Runnable> held = new java.util.ArrayDeque<>();

    @Override
    public <T> Job submit(Work<T> work, Listener<T> listener) {
      Job job = () -> { };
      listener.started(job);
      held.add(() -> {
        try {
          listener.done(work.run(new Progress() {
            @Override
            public void update(String message, double fraction) {
              listener.progress(message, fraction);
            }

            @Override
            public boolean isCancelled() {
              return false;
            }
          }));
        } catch (Exception e) {
          listener.failed(e);
        }
      });
      return job;
    }

    /** Runs what is held, and what that submits, until nothing is left. */
    void releaseAll() {
      while (!held.isEmpty()) {
        held.poll().run();
      }
    }

    /** Runs the one piece of work held first. */
    void releaseOne() {
      held.poll().run();
    }

    int waiting() {
      return held.size();
    }
  }

  @Test
  void aHeadOpenedWhileThePanelIsStillRunningIsShownWhenThatRunEnds() {
    HeldWorker held = new HeldWorker();
    MainViewModel m = new MainViewModel(held, new ModelRepository(dir.resolve("cache")));
    m.textAProperty().set("the cat sat .");
    m.loadModel(dir.resolve("tiny").toString());
    held.releaseAll();
    LinguisticsViewModel vm = new LinguisticsViewModel(m.session());
    vm.open(TREEBANKS.resolve("coref.conllu"));
    held.releaseAll();
    vm.chosenProperty().set(vm.relations().get(vm.relations().size() - 1)); // coreference
    vm.open(new Head(0, 0));
    assertThat(held.waiting()).as("the window of 1-1 is running").isEqualTo(1);
    vm.open(new Head(1, 2)); // a second click while it runs
    held.releaseOne(); // 1-1's window arrives, then the panel runs again for 2-3
    held.releaseAll();
    assertThat(vm.corefWindowProperty().get().head()).isEqualTo(new Head(1, 2));
    assertThat(vm.sentenceStatusProperty().get()).startsWith("Head 2-3 on window");
  }

  private static List<String> concat(String first, List<String> rest) {
    List<String> all = new java.util.ArrayList<>(List.of(first));
    all.addAll(rest);
    return all;
  }

  @Test
  void coreferenceIsOfferedLastAndEqualsCorefHeads() {
    LinguisticsViewModel vm = new LinguisticsViewModel(main.session());
    Path file = TREEBANKS.resolve("coref.conllu");
    vm.open(file);
    RelationChoice last = vm.relations().get(vm.relations().size() - 1);
    assertThat(last.coreference()).isTrue();
    CorefHeads.Result expected = CorefHeads.run(main.session().model(), ConlluReader.read(file),
        Math.min(LinguisticsRun.COREF_WINDOW, main.session().model().tokenizer().maxLength()),
        WordMaps.Progress.NONE, () -> false);
    assertThat(last.count()).isEqualTo(expected.mentions()[0]);
    vm.chosenProperty().set(last);
    double[][] g = vm.grid();
    for (int l = 0; l < 2; l++) {
      for (int h = 0; h < 3; h++) {
        assertThat(g[l][h]).isEqualTo(expected.accuracy(l, h, CorefHeads.MentionType.ALL));
      }
    }
    assertThat(vm.describe(new Head(0, 0))).contains("nearest mention");
  }

  @Test
  void coreferenceOpensAHeadOnAWindowsMentionsNotOnDependencyArcs() {
    LinguisticsViewModel vm = new LinguisticsViewModel(main.session());
    Path file = TREEBANKS.resolve("coref.conllu");
    vm.open(file);
    vm.chosenProperty().set(vm.relations().get(vm.relations().size() - 1));
    assertThat(vm.coreferenceChosen()).isTrue();
    Head h = new Head(1, 2);
    vm.open(h);
    assertThat(vm.sentenceProperty().get()).as("no dependency arcs for coreference").isNull();
    var on = vm.corefWindowProperty().get();
    assertThat(on).isNotNull();
    assertThat(on.head()).isEqualTo(h);
    assertThat(on.picks()).isNotEmpty();
    int window = Math.min(LinguisticsRun.COREF_WINDOW, main.session().model().tokenizer().maxLength());
    var tb = ConlluReader.read(file);
    var windows = io.headscope.analysis.linguistics.CorefOnWindow.windows(main.session().model(), tb, window);
    List<Integer> with = windows.withMentions();
    assertThat(on).isEqualTo(io.headscope.analysis.linguistics.CorefOnWindow.of(main.session().model(), windows,
        with.get(0), h));
    // issue 40: the window's number is among all of the file's windows, the count the status line gives
    // ("21 windows" over "window 1 of 20" read as a contradiction); the panel says how many ◀ ▶ visit
    CorefHeads.Result all = CorefHeads.run(main.session().model(), tb, window, WordMaps.Progress.NONE, () -> false);
    assertThat(windows.size()).isEqualTo(all.windows());
    assertThat(vm.statusProperty().get()).contains("in " + all.windows() + " windows");
    assertThat(vm.sentenceStatusProperty().get()).contains("Head 2-3",
        "window " + (with.get(0) + 1) + " of " + all.windows(), "step through the " + with.size() + " with a mention",
        "right for " + on.correct() + " of " + on.picks().size());

    vm.step(1);
    assertThat(vm.corefWindowProperty().get().index()).isEqualTo(with.get(1 % with.size()));
    vm.step(-1);
    vm.step(-1);
    assertThat(vm.corefWindowProperty().get().index()).isEqualTo(with.get(Math.floorMod(-1, with.size())));

    // the table per mention type: the baselines as the CLI's coref-baselines.csv, the best head as its max
    CorefHeads.Result expected = CorefHeads.run(main.session().model(), tb, window, WordMaps.Progress.NONE, () -> false);
    var rows = vm.corefRows();
    assertThat(rows).extracting(LinguisticsViewModel.CorefRow::type).containsExactly("all", "pronoun", "proper", "nominal");
    for (CorefHeads.MentionType t : CorefHeads.MentionType.values()) {
      var row = rows.get(t.ordinal());
      assertThat(row.mentions()).isEqualTo(expected.mentions()[t.ordinal()]);
      assertThat(row.nearest()).isEqualTo(expected.baselineAccuracy(CorefHeads.NEAREST, t));
      assertThat(row.headMatch()).isEqualTo(expected.baselineAccuracy(CorefHeads.HEAD_MATCH, t));
      double max = -1;
      for (int l = 0; l < 2; l++) {
        for (int k = 0; k < 3; k++) {
          max = Math.max(max, expected.mentions()[t.ordinal()] == 0 ? -1 : expected.accuracy(l, k, t));
        }
      }
      if (expected.mentions()[t.ordinal()] > 0) {
        assertThat(row.best()).isEqualTo(max);
      }
    }

    // back to a relation: the head opens on a sentence with its arcs again
    vm.chosenProperty().set(vm.relations().get(0));
    assertThat(vm.sentenceProperty().get()).isNotNull();
    assertThat(vm.corefWindowProperty().get()).isNull();
  }

  @Test
  void aMissingOrCorruptFileSaysSoInOneLineAndChangesNothing() throws Exception {
    LinguisticsViewModel vm = new LinguisticsViewModel(main.session());
    vm.open(TREEBANKS.resolve("syntax.conllu"));
    LinguisticsRun.Result before = vm.resultProperty().get();
    List<RelationChoice> relations = List.copyOf(vm.relations());
    RelationChoice chosen = vm.chosenProperty().get();

    vm.open(dir.resolve("missing.conllu"));
    String missing = vm.statusProperty().get();
    assertThat(missing).startsWith("Could not use missing.conllu: ").contains("does not exist")
        .contains("previous treebank stays").doesNotContain("\n");

    Path corrupt = Files.writeString(dir.resolve("corrupt.conllu"), "1\tthe\nnot a conllu line\n\n\u0000\u0001\n");
    vm.open(corrupt);
    assertThat(vm.statusProperty().get()).startsWith("Could not use corrupt.conllu: ").contains("no usable sentence")
        .doesNotContain("\n");
    assertThat(vm.resultProperty().get()).isSameAs(before);
    assertThat(vm.relations()).containsExactlyElementsOf(relations);
    assertThat(vm.chosenProperty().get()).isEqualTo(chosen);
    assertThat(main.session().errorProperty().get()).as("no dialog").isNull();
  }

  private static RelationChoice choice(LinguisticsViewModel vm, String relation) {
    return vm.relations().stream().filter(c -> c.relation().equals(relation)).findFirst().orElseThrow();
  }
}
