package io.headscope.bench;

import io.headscope.app.gui.HeadScopeApp;
import io.headscope.app.gui.LongText;
import io.headscope.app.gui.exec.FxWorker;
import io.headscope.app.gui.main.MainView;
import io.headscope.model.core.Head;
import io.headscope.model.repository.ModelRepository;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javafx.application.Platform;
import javafx.scene.control.TabPane;
import javafx.stage.Stage;

/**
 * The pictures of docs/screenshots: the real window on bert-base-uncased, put through the states a
 * new researcher meets, each captured from the X server ({@code import -window root}, ImageMagick) as
 * a person would see it. Run on a virtual screen of the size wanted:
 * {@code xvfb-run -s "-screen 0 1920x1080x24" java -cp ... io.headscope.bench.ScreenshotTour OUT 1920 1080}.
 * A fourth argument {@code head-map} takes only the head map's pictures (the current input, then the
 * shipped English pairs, which take minutes).
 */
public final class ScreenshotTour {
  private static MainView view;
  private static Stage stage;

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args[0]);
    int w = Integer.parseInt(args[1]);
    int h = Integer.parseInt(args[2]);
    Files.createDirectories(out);
    CountDownLatch started = new CountDownLatch(1);
    Platform.startup(started::countDown);
    started.await();
    fx(() -> {
      stage = new Stage();
      view = HeadScopeApp.create(stage, new FxWorker(), ModelRepository.standard());
      stage.setX(0);
      stage.setY(0);
      stage.setWidth(w);
      stage.setHeight(h);
      view.viewModel().textAProperty().set("The doctor asked the nurse to bring [MASK] coffee.");
      stage.show();
      if (args.length > 3 && args[3].equals("issue41")) {
        // a tiny Llama (grouped-query, bf16, sharded) then a tiny T5, as the tests build them: README's app pictures
        view.viewModel().textAProperty().set("the cat sat on the mat");
        view.viewModel().loadModel(issue41Folders()[0].toString());
        return null;
      }
      boolean decoder = args.length > 4 && args[3].equals("decoder");
      if (decoder) {
        view.viewModel().textAProperty().set("The doctor asked the nurse to bring the coffee because she was tired");
      }
      view.viewModel().loadModel(decoder ? args[4] : ModelRepository.DEFAULT_MODEL);
      return null;
    });
    idle();
    if (args.length > 3 && args[3].equals("issue41")) {
      encoderDecoder(out, w, h);
      Platform.exit();
      System.exit(0);
    }
    if (args.length > 4 && args[3].equals("decoder")) {
      decoder(out, w, h, args.length > 5 ? args[5] : "decoder");
      Platform.exit();
      System.exit(0);
    }
    if (args.length > 4 && args[3].equals("linguistics")) {
      linguistics(out, w, h, Path.of(args[4]));
      Platform.exit();
      System.exit(0);
    }
    if (args.length > 3 && args[3].equals("circuits")) {
      circuits(out, w, h);
      Platform.exit();
      System.exit(0);
    }
    if (args.length > 3 && args[3].equals("patch")) {
      // CAUSAL.md's pair A on the Patching screen, with attribution patching beside it
      io.headscope.app.gui.patch.PatchView patch = fx(() -> {
        view.viewModel().textAProperty().set("My sister lost her keys . The doctor said [MASK] would be late .");
        view.viewModel().analyse();
        view.showScreen("patch");
        var v = (io.headscope.app.gui.patch.PatchView) view.lookup("#patch-view");
        v.viewModel().corruptedProperty().set("My brother lost his keys . The doctor said [MASK] would be late .");
        v.viewModel().targetProperty().set("she");
        v.viewModel().contrastProperty().set("he");
        return v;
      });
      idle();
      fx(() -> {
        patch.viewModel().run();
        return null;
      });
      long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
      while (System.nanoTime() < end && fx(() -> patch.viewModel().resultProperty().get() == null)) {
        Thread.sleep(200);
      }
      idle();
      shot(out, "16-patching", w, h);
      fx(() -> {
        patch.viewModel().siteProperty().set(io.headscope.analysis.causal.PatchSite.RESID_PRE);
        patch.viewModel().run();
        return null;
      });
      Thread.sleep(500);
      end = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
      while (System.nanoTime() < end && fx(() -> patch.viewModel().runningProperty().get())) {
        Thread.sleep(200);
      }
      idle();
      shot(out, "16b-patching-resid", w, h);
      // the whole distribution's KL instead of the followed word, per head
      fx(() -> {
        patch.viewModel().siteProperty().set(io.headscope.analysis.causal.PatchSite.HEAD);
        patch.viewModel().klProperty().set(true);
        patch.viewModel().run();
        return null;
      });
      Thread.sleep(500);
      end = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
      while (System.nanoTime() < end && fx(() -> patch.viewModel().runningProperty().get())) {
        Thread.sleep(200);
      }
      idle();
      shot(out, "16c-patching-kl", w, h);
      Platform.exit();
      System.exit(0);
    }
    if (args.length > 3 && args[3].equals("lens")) {
      // the Logit lens screen on CAUSAL.md's sentence, following she against he, integrated gradients
      io.headscope.app.gui.lens.LensView lens = fx(() -> {
        view.viewModel().textAProperty().set("My sister lost her keys . The doctor said [MASK] would be late .");
        view.viewModel().analyse();
        view.showScreen("lens");
        var v = (io.headscope.app.gui.lens.LensView) view.lookup("#lens-view");
        v.viewModel().targetProperty().set("she");
        v.viewModel().contrastProperty().set("he");
        v.viewModel().integratedProperty().set(true);
        return v;
      });
      idle();
      fx(() -> {
        lens.viewModel().run();
        return null;
      });
      long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
      while (System.nanoTime() < end && fx(() -> lens.viewModel().resultProperty().get() == null)) {
        Thread.sleep(200);
      }
      idle();
      shot(out, "18-lens", w, h);
      // scrolled to the direct logit attribution grid, head 12-4 opened from it: the head view's strip
      fx(() -> {
        lens.viewModel().select(new Head(11, 3));
        // the attribution's heading at the top of the pane
        var sp = (javafx.scene.control.ScrollPane) lens.lookup(".scroll-pane");
        var box = lens.lookup("#lens-dla-box");
        double content = sp.getContent().getBoundsInLocal().getHeight();
        double viewport = sp.getViewportBounds().getHeight();
        sp.setVvalue(content > viewport ? Math.min(1, box.getBoundsInParent().getMinY() / (content - viewport)) : 0);
        return null;
      });
      Thread.sleep(1500);
      idle();
      shot(out, "18b-lens-dla", w, h);
      Platform.exit();
      System.exit(0);
    }
    if (args.length > 3 && args[3].equals("neuron")) {
      // the head view's neuron view: head 9-11 (0-based 8-10) on the [MASK]
      fx(() -> {
        view.viewModel().select(new Head(8, 10));
        ((javafx.scene.control.TabPane) view.lookup("#head-view .tab-pane")).getSelectionModel().select(2);
        return null;
      });
      // q and k are read on the model's thread: under load that takes longer than a fixed pause
      Thread.sleep(1000);
      long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
      while (System.nanoTime() < end && fx(() -> view.lookupAll(".label").stream()
          .anyMatch(n -> n.isVisible() && ((javafx.scene.control.Label) n).getText() != null
              && ((javafx.scene.control.Label) n).getText().startsWith("Reading head")))) {
        Thread.sleep(300);
      }
      Thread.sleep(1000);
      idle();
      shot(out, "17-neuron", w, h);
      Platform.exit();
      System.exit(0);
    }
    if (args.length > 3 && args[3].equals("uncertain")) {
      // a long paste: heads the classifier is unsure of are framed grey and dashed; open the first one
      fx(() -> {
        view.viewModel().textAProperty().set(LongText.words(700));
        view.viewModel().analyse();
        return null;
      });
      idle();
      fx(() -> {
        view.viewModel().scoresProperty().stream().filter(io.headscope.analysis.heads.HeadScore::uncertain).findFirst()
            .ifPresent(s -> view.viewModel().select(s.head()));
        return null;
      });
      idle();
      shot(out, "19-uncertain-heads", w, h);
      Platform.exit();
      System.exit(0);
    }
    if (args.length > 3 && args[3].equals("rank")) {
      // the grid ranked by attention to the previous token, top 8
      fx(() -> {
        view.viewModel().rank().chosenProperty().set("attention to the previous token");
        view.viewModel().rank().topProperty().set(8);
        return null;
      });
      idle();
      shot(out, "15-rank-previous", w, h);
      Platform.exit();
      System.exit(0);
    }
    if (args.length > 3 && args[3].equals("layers")) {
      layers(out, w, h);
      Platform.exit();
      System.exit(0);
    }
    if (args.length > 3 && args[3].equals("screens")) {
      screens(out, w, h, args.length > 4 ? Path.of(args[4]) : null);
      Platform.exit();
      System.exit(0);
    }
    if (args.length > 3 && args[3].equals("favor")) {
      favor(out, w, h);
      Platform.exit();
      System.exit(0);
    }
    if (args.length > 3 && args[3].equals("families")) {
      families(out, w, h);
      Platform.exit();
      System.exit(0);
    }
    if (args.length > 3 && args[3].equals("long")) {
      // the long paste alone (README's long-input-512-tokens), without the rest of the main tour
      fx(() -> {
        view.viewModel().textAProperty().set(LongText.words(700));
        view.viewModel().analyse();
        return null;
      });
      idle();
      shot(out, "06-long-input-512-tokens", w, h);
      Platform.exit();
      System.exit(0);
    }
    if (args.length > 3 && args[3].equals("head-map")) {
      headMap(out, w, h);
      Platform.exit();
      System.exit(0);
    }
    fx(() -> {
      view.viewModel().select(new Head(8, 10));
      return null;
    });
    shot(out, "01-first-window", w, h);

    fx(() -> {
      view.viewModel().textBProperty().set("She said it would help her stay awake.");
      view.viewModel().analyse();
      return null;
    });
    idle();
    shot(out, "02-pair-head-8-10", w, h);
    if (args.length > 3 && args[3].equals("main")) {
      // the first two pictures alone (README's main-1280x800): a quick look at the main window
      Platform.exit();
      System.exit(0);
    }

    // the metric you care about: P(her) vs P(him) with heads off
    fx(() -> {
      view.viewModel().textBProperty().set("");
      view.viewModel().predictions().targetWordProperty().set("her");
      view.viewModel().predictions().contrastWordProperty().set("his");
      view.viewModel().analyse();
      return null;
    });
    idle();
    fx(() -> {
      view.viewModel().toggleLayer(10);
      return null;
    });
    idle();
    fx(() -> {
      view.viewModel().select(new Head(11, 0));
      return null;
    });
    shot(out, "03-layer-11-off-intact-maps", w, h);
    fx(() -> {
      view.viewModel().session().mapsShownProperty().set(io.headscope.app.render.MapsShown.DIFFERENCE);
      return null;
    });
    idle();
    shot(out, "04-layer-11-off-difference", w, h);
    fx(() -> {
      view.viewModel().session().mapsShownProperty().set(io.headscope.app.render.MapsShown.INTACT);
      view.viewModel().switchAllOn();
      return null;
    });
    idle();

    // a long input
    fx(() -> {
      view.viewModel().textAProperty().set(LongText.words(700));
      view.viewModel().analyse();
      return null;
    });
    Thread.sleep(400);
    shot(out, "05-long-input-while-running", w, h);
    idle();
    shot(out, "06-long-input-512-tokens", w, h);
    fx(() -> {
      ((TabPane) view.lookup("#head-view .tab-pane")).getSelectionModel().select(1);
      return null;
    });
    Thread.sleep(500);
    shot(out, "07-long-input-lines", w, h);
    fx(() -> {
      ((TabPane) view.lookup("#head-view .tab-pane")).getSelectionModel().select(0);
      view.viewModel().textAProperty().set("The doctor asked the nurse to bring [MASK] coffee.");
      view.viewModel().analyse();
      return null;
    });
    idle();
    headMap(out, w, h);
    Platform.exit();
    System.exit(0);
  }

  /** The head map tab: drawn over the current input, then over the shipped English pairs. */
  @SuppressWarnings("unchecked")
  private static void headMap(Path out, int w, int h) throws Exception {
    fx(() -> {
      view.showScreen("head-map");
      view.viewModel().select(new Head(8, 10));
      ((javafx.scene.control.Button) view.lookup("#head-map-draw")).fire();
      return null;
    });
    headMapDrawn();
    shot(out, "08-head-map-current-input", w, h);
    fx(() -> {
      var choice = (javafx.scene.control.ChoiceBox<io.headscope.app.gui.screen.CorpusSource>)
          view.lookup("#head-map-source");
      choice.setValue(io.headscope.app.gui.screen.CorpusSource.shipped("english-pairs.txt"));
      ((javafx.scene.control.Button) view.lookup("#head-map-draw")).fire();
      return null;
    });
    long start = System.nanoTime();
    headMapDrawn();
    System.out.printf("head map over the English pairs: %.1f s%n", (System.nanoTime() - start) / 1e9);
    shot(out, "09-head-map-english-pairs", w, h);
  }

  /**
   * The words switch on a sentence with split words, then the Linguistics tab on a treebank
   * ({@code ./headscope bench screenshots DIR W H linguistics FILE.conllu}) with the best det head opened.
   */
  private static void linguistics(Path out, int w, int h, Path treebank) throws Exception {
    fx(() -> {
      view.viewModel().textAProperty().set("The unbelievably cheerful painters rearranged her furniture.");
      view.viewModel().analyse();
      return null;
    });
    idle();
    fx(() -> {
      view.viewModel().select(new Head(7, 10));
      view.viewModel().session().wordsShownProperty().set(true);
      return null;
    });
    idle();
    shot(out, "10-words-switch", w, h);
    io.headscope.app.gui.linguistics.LinguisticsView ling = fx(() -> {
      view.showScreen("linguistics");
      var v = (io.headscope.app.gui.linguistics.LinguisticsView) view.lookup("#linguistics-view");
      v.open(treebank);
      return v;
    });
    long start = System.nanoTime();
    long end = start + TimeUnit.MINUTES.toNanos(10);
    while (System.nanoTime() < end && !fx(() -> ((javafx.scene.control.Label) view.lookup("#ling-status")).getText()
        .contains("sentences,"))) {
      Thread.sleep(200);
    }
    System.out.printf("linguistics over %s: %.1f s%n", treebank.getFileName(), (System.nanoTime() - start) / 1e9);
    fx(() -> {
      ling.choose("det");
      ling.openBest();
      return null;
    });
    Thread.sleep(2000);
    // the head on the first sentence runs on the model's thread: wait for it, not a fixed pause
    end = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    while (System.nanoTime() < end && fx(() -> {
      String t = ((javafx.scene.control.Label) view.lookup("#ling-sentence-status")).getText();
      return t == null || t.startsWith("Running");
    })) {
      Thread.sleep(300);
    }
    Thread.sleep(1000);
    // the opened panel scrolls itself into view (revealPanel) and at 800 px the grid leaves it: the grid picture
    // scrolls back to the top, as a reader does to see the grid with its orange frame
    fx(() -> {
      ((javafx.scene.control.ScrollPane) view.lookup("#linguistics-view .scroll-pane")).setVvalue(0);
      return null;
    });
    Thread.sleep(300);
    shot(out, "11-linguistics-det", w, h);
    fx(() -> {
      // the sentence panel at the top of the pane (it sits under the grid, above the table)
      var sp = (javafx.scene.control.ScrollPane) view.lookup("#linguistics-view .scroll-pane");
      var prev = view.lookup("#ling-previous");
      double y = sp.getContent().sceneToLocal(prev.localToScene(0, 0)).getY() - 4;
      double content = sp.getContent().getBoundsInLocal().getHeight();
      double viewport = sp.getViewportBounds().getHeight();
      sp.setVvalue(content > viewport ? Math.min(1, y / (content - viewport)) : 0);
      return null;
    });
    shot(out, "12-linguistics-sentence", w, h);
    // with coreference in the file: its best head on a window's mentions
    boolean coref = fx(() -> {
      ((javafx.scene.control.ScrollPane) view.lookup("#linguistics-view .scroll-pane")).setVvalue(0);
      ling.choose(io.headscope.app.gui.linguistics.RelationChoice.COREFERENCE);
      return ((javafx.scene.control.ChoiceBox<?>) view.lookup("#ling-relation")).getValue().toString()
          .startsWith(io.headscope.app.gui.linguistics.RelationChoice.COREFERENCE);
    });
    if (coref) {
      fx(() -> {
        ling.openHead(new Head(3, 3));
        return null;
      });
      Thread.sleep(3000);
      shot(out, "13-linguistics-coref", w, h);
      fx(() -> {
        ((javafx.scene.control.ScrollPane) view.lookup("#linguistics-view .scroll-pane")).setVvalue(1);
        return null;
      });
      shot(out, "14-linguistics-coref-window", w, h);
    }
  }

  /** The Linear attention tab: every head's FAVOR+ error on the current input, head 9-11 (0-based 8-10) shown. */
  private static void favor(Path out, int w, int h) throws Exception {
    long start = System.nanoTime();
    fx(() -> {
      view.showScreen("favor");
      ((javafx.scene.control.Button) view.lookup("#favor-run")).fire();
      return null;
    });
    long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
    Thread.sleep(500);
    while (fx(() -> view.lookup("#favor-cancel").isDisabled()) == Boolean.FALSE && System.nanoTime() < end) {
      Thread.sleep(200);
    }
    System.out.printf("FAVOR+ errors of every head on the current input: %.1f s%n", (System.nanoTime() - start) / 1e9);
    fx(() -> {
      ((io.headscope.app.gui.favor.FavorView) view.lookup("#favor-view")).viewModel().select(8, 10);
      return null;
    });
    shot(out, "10-linear-attention", w, h);
    // the toggle: head 9-11's whole layer on FAVOR+, the predictions panel shows the change
    fx(() -> {
      var vm = ((io.headscope.app.gui.favor.FavorView) view.lookup("#favor-view")).viewModel();
      vm.scopeProperty().set(io.headscope.app.gui.favor.FavorViewModel.Scope.LAYER);
      vm.predictionsOnFavorProperty().set(true);
      return null;
    });
    Thread.sleep(300);
    idle();
    shot(out, "10b-linear-attention-predictions", w, h);
  }

  /**
   * Every screen of the navigation, in its order, as a new user meets it: the quick ones run on the
   * current input (the corpus screen on the first shipped corpus, Compare against the same model, the
   * linguistics screen on a treebank when one is given); FAVOR+ and pruning shown before a run.
   */
  private static void screens(Path out, int w, int h, Path treebank) throws Exception {
    java.util.List<String> ids = new java.util.ArrayList<>(java.util.List.of("grid"));
    io.headscope.app.gui.Screens.ALL.forEach(d -> ids.add(d.id()));
    java.util.Map<String, String> run = java.util.Map.of("head-map", "#head-map-draw", "corpus", "#corpus-run",
        "sweep", "#sweep-run", "flow", "#flow-compute", "layers", "#layers-run", "compare", "#compare-run");
    for (String id : ids) {
      fx(() -> {
        view.showScreen(id);
        if (id.equals("compare")) {
          var second = (javafx.scene.control.ChoiceBox<?>) view.lookup("#compare-second");
          second.getSelectionModel().selectFirst();
        }
        if (id.equals("linguistics") && treebank != null) {
          ((io.headscope.app.gui.linguistics.LinguisticsView) view.lookup("#linguistics-view")).open(treebank);
        }
        if (run.containsKey(id)) {
          ((javafx.scene.control.Button) view.lookup(run.get(id))).fire();
        }
        if (id.equals("lens")) {
          // the logit lens with integrated gradients on a model without a mask token: from zero (issue 40)
          ((javafx.scene.control.TextField) view.lookup("#lens-target")).setText("ca");
          ((javafx.scene.control.CheckBox) view.lookup("#lens-integrated")).setSelected(true);
          ((io.headscope.app.gui.lens.LensView) view.lookup("#lens-view")).viewModel().run();
        }
        return null;
      });
      Thread.sleep(500);
      long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
      while (fx(() -> view.lookupAll(".button").stream().anyMatch(b -> b.getId() != null
          && b.getId().endsWith("-cancel") && b.isVisible() && !b.isDisabled())) && System.nanoTime() < end) {
        Thread.sleep(200);
      }
      shot(out, "screen-" + id, w, h);
    }
  }

  /**
   * A RoBERTa-shaped and a GPT-2-shaped model (random weights, 4 layers of 4 heads, hand-made byte-level
   * BPE tokenizers: docs/screenshots shows what each family changes in the window), the grid and a head.
   */
  private static void families(Path out, int w, int h) throws Exception {
    Path dir = Files.createTempDirectory("headscope-families");
    for (String type : java.util.List.of("roberta", "gpt2")) {
      Path folder = dir.resolve(type);
      io.headscope.model.testing.families.FamilyModelFolders.write(type, folder, 3);
      fx(() -> {
        // RoBERTa's mask typed as BERT's: read as <mask> (issue 40)
        view.viewModel().textAProperty().set(type.equals("gpt2") ? "the cat sat on the mat" : "the cat sat on the [MASK] .");
        view.viewModel().textBProperty().set("");
        view.viewModel().loadModel(folder.toString());
        return null;
      });
      Thread.sleep(1500);
      idle();
      fx(() -> {
        view.viewModel().select(new Head(1, 1));
        return null;
      });
      idle();
      shot(out, "family-" + type, w, h);
    }
    // every other screen on the GPT-2 (the last loaded): what runs, and what says why it does not apply
    java.util.Map<String, String> run = java.util.Map.of("corpus", "#corpus-run", "sweep", "#sweep-run",
        "flow", "#flow-compute", "layers", "#layers-run");
    for (io.headscope.app.gui.screen.ScreenDescriptor d : io.headscope.app.gui.Screens.ALL) {
      String id = d.id();
      if (id.equals("head-map") || id.equals("compare") || id.equals("linguistics")) {
        continue; // corpus-wide or two-model screens: the CLI audit covered them
      }
      fx(() -> {
        view.showScreen(id);
        if (run.containsKey(id)) {
          ((javafx.scene.control.Button) view.lookup(run.get(id))).fire();
        }
        if (id.equals("lens")) {
          // the logit lens with integrated gradients on a model without a mask token: from zero (issue 40)
          ((javafx.scene.control.TextField) view.lookup("#lens-target")).setText("ca");
          ((javafx.scene.control.CheckBox) view.lookup("#lens-integrated")).setSelected(true);
          ((io.headscope.app.gui.lens.LensView) view.lookup("#lens-view")).viewModel().run();
        }
        return null;
      });
      Thread.sleep(4000);
      shot(out, "family-gpt2-screen-" + id, w, h);
    }
  }

  /** The Layers screen on the app's first sentence, the cell h4 -> layer 8 opened (layers 5-7 skipped). */
  private static void layers(Path out, int w, int h) throws Exception {
    fx(() -> {
      view.viewModel().textAProperty().set("The cat sat on the [MASK] because it was tired.");
      view.viewModel().analyse();
      return null;
    });
    idle();
    fx(() -> {
      view.showScreen("layers");
      ((javafx.scene.control.Button) view.lookup("#layers-run")).fire();
      return null;
    });
    long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
    Thread.sleep(500);
    while (fx(() -> view.lookup("#layers-cancel").isDisabled()) == Boolean.FALSE && System.nanoTime() < end) {
      Thread.sleep(200);
    }
    fx(() -> {
      ((io.headscope.app.gui.layers.LayersView) view.lookup("#layers-view")).viewModel().select(4, 8);
      return null;
    });
    // the cell's predictions run on the model's thread: under load longer than a fixed pause
    Thread.sleep(1000);
    end = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    while (System.nanoTime() < end && fx(() -> view.lookupAll(".label").stream()
        .anyMatch(n -> n.isVisible() && ((javafx.scene.control.Label) n).getText() != null
            && ((javafx.scene.control.Label) n).getText().startsWith("Predicting with")))) {
      Thread.sleep(300);
    }
    Thread.sleep(1000);
    shot(out, "13-layers-h4-to-8", w, h);
  }

  private static void headMapDrawn() throws Exception {
    long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
    Thread.sleep(300);
    while (System.nanoTime() < end) {
      if (fx(() -> !view.lookup("#head-map-progress").isVisible()
          && view.lookup("#head-map").getBoundsInLocal().getWidth() > 100)) {
        return;
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException("the head map was not drawn");
  }

  /**
   * A decoder with many heads (issue 41): the All heads grid, a head opened (its map recomputed on demand
   * when the run kept summaries), the heads ranked by the first token's share, and the grid zoomed.
   */
  private static void decoder(Path out, int w, int h, String name) throws Exception {
    shot(out, name + "-grid", w, h);
    fx(() -> {
      view.viewModel().select(new io.headscope.model.core.Head(10, 13));
      return null;
    });
    Thread.sleep(1500);
    shot(out, name + "-head", w, h);
    fx(() -> {
      view.viewModel().rank().chosenProperty().set(io.headscope.app.gui.main.MainViewModel.SINK);
      return null;
    });
    Thread.sleep(1000);
    shot(out, name + "-ranked-by-sink", w, h);
    fx(() -> {
      view.viewModel().rank().chosenProperty().set(io.headscope.app.gui.main.rank.RankViewModel.NONE);
      view.grid().zoom(3);
      return null;
    });
    Thread.sleep(1500);
    shot(out, name + "-zoomed", w, h);
  }

  private static Path[] issue41;

  /** The tiny Llama and T5 folders of the tests (random weights, hand-written tokenizers), written once. */
  private static Path[] issue41Folders() {
    if (issue41 == null) {
      try {
        Path dir = Files.createTempDirectory("headscope-issue41");
        issue41 = new Path[] {io.headscope.model.decoders.DecoderFolders.llama(dir.resolve("tiny-llama"), 3),
            io.headscope.model.encoderdecoders.EncoderDecoderFolders.write("t5", dir.resolve("tiny-t5"), 21)};
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    return issue41;
  }

  /**
   * Issue 41's app pictures: a decoder (the tiny Llama: its key/value groups over the grid, a causal map), then an
   * encoder-decoder (the tiny T5) on its cross maps with a cross head switched off, the predictions before and after.
   */
  private static void encoderDecoder(Path out, int w, int h) throws Exception {
    fx(() -> {
      view.viewModel().select(new Head(1, 2));
      return null;
    });
    idle();
    shot(out, "app-decoder", w, h);
    fx(() -> {
      view.viewModel().loadModel(issue41Folders()[1].toString());
      return null;
    });
    // the target typed once the T5 is open (typed before, the Llama would be asked for a pair it cannot read)
    long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    while (fx(() -> view.viewModel().session().twoStacks() == null) && System.nanoTime() < end) {
      Thread.sleep(200);
    }
    fx(() -> {
      view.viewModel().textBProperty().set("a cat sat on a mat");
      view.viewModel().analyse();
      return null;
    });
    Thread.sleep(1500);
    idle();
    fx(() -> {
      view.viewModel().encoderDecoder().setKind(io.headscope.model.core.AttentionKind.CROSS);
      view.viewModel().toggleHead(new Head(0, 2));
      return null;
    });
    Thread.sleep(1000);
    idle();
    fx(() -> {
      view.viewModel().select(new Head(1, 1));
      return null;
    });
    idle();
    shot(out, "app-t5-cross", w, h);
    // the cross heads ranked by their share of attention on the source's </s>, top 4 (a check, not a docs picture)
    fx(() -> {
      view.viewModel().rank().chosenProperty().set(io.headscope.app.gui.main.MainViewModel.END + " (</s>)");
      view.viewModel().rank().topProperty().set(4);
      return null;
    });
    idle();
    shot(out, "app-t5-cross-rank-end", w, h);
    if (Boolean.getBoolean("headscope.tour.refusal")) {
      // what another screen says on an encoder-decoder (a check of the one line, not a docs picture)
      fx(() -> {
        view.showScreen("lens");
        return null;
      });
      shot(out, "app-t5-lens-refusal", w, h);
    }
  }

  /** The Circuits screen on CAUSAL.md's pair A: EAP's edges, the largest one clicked, then the weights' side. */
  private static void circuits(Path out, int w, int h) throws Exception {
    io.headscope.app.gui.circuits.CircuitsView c = fx(() -> {
      view.viewModel().textAProperty().set("My sister lost her keys . The doctor said [MASK] would be late .");
      view.viewModel().analyse();
      view.showScreen("circuits");
      var v = (io.headscope.app.gui.circuits.CircuitsView) view.lookup("#circuits-view");
      v.viewModel().corruptedProperty().set("My brother lost his keys . The doctor said [MASK] would be late .");
      v.viewModel().targetProperty().set("she");
      v.viewModel().contrastProperty().set("he");
      // CAUSAL.md's set for mean ablation: with it typed, both ablations run and the screen compares them
      v.viewModel().corruptedSetProperty().set(String.join("\n", java.util.stream.Stream.of("brother lost his",
          "father lost his", "uncle lost his", "son lost his", "friend lost the", "boss lost the")
          .map(x -> "My " + x + " keys . The doctor said [MASK] would be late .").toList()));
      return v;
    });
    idle();
    fx(() -> {
      c.viewModel().run();
      return null;
    });
    waitWhile(() -> c.viewModel().runningProperty().get());
    shot(out, "17-circuits", w, h);
    // the graph as the Export menu writes it, to look at beside the screen
    fx(() -> {
      var f = c.viewModel().figure();
      io.headscope.app.render.figure.FigureFile.write(f, out.resolve("17-circuit-figure.svg"),
          io.headscope.app.render.figure.FigureFile.Format.SVG, 1);
      io.headscope.app.render.figure.FigureFile.write(f, out.resolve("17-circuit-figure.png"),
          io.headscope.app.render.figure.FigureFile.Format.PNG, 1.5);
      return null;
    });
    fx(() -> {
      c.viewModel().selectEdge(c.viewModel().shownProperty().get().get(0));
      return null;
    });
    waitWhile(() -> c.viewModel().runningProperty().get());
    fx(() -> {
      c.viewModel().computeWeights();
      return null;
    });
    waitWhile(() -> c.viewModel().runningProperty().get());
    shot(out, "17b-circuits-edge-composition", w, h);
  }

  private static void waitWhile(Supplier<Boolean> busy) throws Exception {
    Thread.sleep(500);
    long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
    while (System.nanoTime() < end && fx(busy)) {
      Thread.sleep(300);
    }
    idle();
  }

  private static void shot(Path dir, String name, int w, int h) throws Exception {
    Thread.sleep(700);
    fx(() -> null);
    Path file = dir.resolve(name + "-" + w + "x" + h + ".png");
    Process p = new ProcessBuilder("import", "-window", "root", file.toString()).inheritIO().start();
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException("import failed for " + file);
    }
    System.out.println("wrote " + file);
  }

  private static void idle() throws Exception {
    long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
    while (System.nanoTime() < end) {
      boolean done = fx(() -> view.viewModel().traceProperty().get() != null && !view.viewModel().busyProperty().get()
          && !Boolean.TRUE.equals(view.grid().getProperties().get("headscope.pending")));
      if (done) {
        Thread.sleep(300);
        if (fx(() -> !view.viewModel().busyProperty().get())) {
          return;
        }
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("the window did not settle");
  }

  private static <T> T fx(Supplier<T> s) throws Exception {
    CompletableFuture<T> f = new CompletableFuture<>();
    Platform.runLater(() -> {
      try {
        f.complete(s.get());
      } catch (Throwable e) {
        f.completeExceptionally(e);
      }
    });
    return f.get(10, TimeUnit.MINUTES);
  }
}
