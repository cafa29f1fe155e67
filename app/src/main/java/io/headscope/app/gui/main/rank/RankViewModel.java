package io.headscope.app.gui.main.rank;

import io.headscope.analysis.heads.HeadScore;
import io.headscope.app.gui.session.HeadMeasure;
import io.headscope.app.gui.session.Session;
import io.headscope.model.core.Head;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ListChangeListener;
import javafx.collections.MapChangeListener;
import javafx.collections.ObservableList;

/**
 * "Which heads attend to the previous token?": every head ranked by one number, the top ones named in a
 * list and marked in the grid. The numbers are the current input's scores (attention to the previous,
 * same and next token, to [CLS], [SEP] and punctuation, entropy, the pattern scores and the category's
 * confidence) and whatever the screens have published on the session (a relation's syntax accuracy, a
 * sweep's effect). Heads without a value (NaN) are left out; ties go to the lower layer, then head.
 */
public final class RankViewModel {
  /**
   * The choice that ranks nothing, worded as what to do: a bare dash read as an empty box (issue 40's
   * walk-through: "Rank heads by" looked blank on a new window).
   */
  public static final String NONE = "no ranking (choose a score)";

  /** One ranked head: its place (1-based), the head and its value. */
  public record Ranked(int rank, Head head, double value) {
    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%d. %s  %s", rank, head, format(value));
    }
  }

  /** @param key the score whatever the model calls its special tokens (a choice keeps its score across models) */
  private record BuiltIn(String key, String name, ToDoubleFunction<HeadScore> of, boolean largestFirst) {}

  /**
   * The scores every input has, in the list's order, the special tokens named as the model names them
   * ({@code <s>} and {@code </s>} on RoBERTa); on a model whose inputs carry no such tokens (GPT-2, Llama) the two
   * shares are left out, as they are 0 for every head there.
   */
  private static List<BuiltIn> builtIns(io.headscope.app.render.TokenTypeNames names) {
    List<BuiltIn> all = List.of(
      new BuiltIn("previous", "attention to the previous token", s -> s.stats().previous(), true),
      new BuiltIn("self", "attention to the same token", s -> s.stats().self(), true),
      new BuiltIn("next", "attention to the next token", s -> s.stats().next(), true),
      new BuiltIn("cls", "attention to " + names.cls(), s -> s.stats().cls(), true),
      new BuiltIn("sep", "attention to " + names.sep(), s -> s.stats().sep(), true),
      new BuiltIn("punct", "attention to punctuation", s -> s.stats().punct(), true),
      new BuiltIn("entropy", "entropy (nats; smallest = most focused)", s -> s.stats().entropy(), false),
      new BuiltIn("confidence", "category confidence", HeadScore::confidence, true),
      new BuiltIn("vertical", "vertical score", HeadScore::vertical, true),
      new BuiltIn("diagonal", "diagonal score", HeadScore::diagonal, true),
      new BuiltIn("block", "block score", HeadScore::block, true),
      new BuiltIn("heterogeneous", "heterogeneous score", HeadScore::heterogeneous, true),
      new BuiltIn("valueNorm", "mean value-vector norm", s -> s.stats().meanValueNorm(), true));
    if (names.marked()) {
      return all;
    }
    return all.stream().filter(b -> !b.key().equals("cls") && !b.key().equals("sep")).toList();
  }

  private List<BuiltIn> builtIn = builtIns(io.headscope.app.render.TokenTypeNames.BERT);

  private final Session session;
  private final ObservableList<HeadScore> scores;
  private final ObservableList<String> choices = FXCollections.observableArrayList();
  private final ObjectProperty<String> chosen = new SimpleObjectProperty<>(NONE);
  private final IntegerProperty top = new SimpleIntegerProperty(10);
  private final BooleanProperty largestFirst = new SimpleBooleanProperty(true);
  private final ObservableList<Ranked> ranked = FXCollections.observableArrayList();
  private final ReadOnlyObjectWrapper<Map<Head, Integer>> ranks = new ReadOnlyObjectWrapper<>(Map.of());

  public RankViewModel(Session session, ObservableList<HeadScore> scores) {
    this.session = session;
    this.scores = scores;
    builtIn = builtIns(io.headscope.app.render.TokenTypeNames.of(session.modelProperty().get()));
    listChoices();
    session.modelProperty().addListener((o, a, b) -> {
      // another model names its special tokens its own way: the same score keeps its place under the new name
      String was = keyOfBuiltIn(chosen.get());
      builtIn = builtIns(io.headscope.app.render.TokenTypeNames.of(b));
      listChoices();
      if (was != null) {
        // the score under this model's name, or no ranking where the model has no such score
        chosen.set(builtIn.stream().filter(s -> s.key().equals(was)).map(BuiltIn::name).findFirst().orElse(NONE));
      }
    });
    session.measures().addListener((MapChangeListener<String, HeadMeasure>) c -> {
      listChoices();
      rank();
    });
    scores.addListener((ListChangeListener<HeadScore>) c -> rank());
    chosen.addListener((o, a, b) -> {
      largestFirst.set(defaultLargestFirst(b));
      rank();
    });
    top.addListener((o, a, b) -> rank());
    largestFirst.addListener((o, a, b) -> rank());
  }

  /** {@link #NONE}, the built-in scores, then the screens' published measures. */
  public ObservableList<String> choices() {
    return choices;
  }

  /** The number heads are ranked by ({@link #NONE}: no ranking). */
  public ObjectProperty<String> chosenProperty() {
    return chosen;
  }

  /** How many heads the list names and the grid marks. */
  public IntegerProperty topProperty() {
    return top;
  }

  /** Largest values first (the default for most numbers) or smallest first. */
  public BooleanProperty largestFirstProperty() {
    return largestFirst;
  }

  /** The top heads, in order. */
  public ObservableList<Ranked> ranked() {
    return ranked;
  }

  /** Each ranked head's place (1-based), for the grid's marks. */
  public ReadOnlyObjectProperty<Map<Head, Integer>> ranksProperty() {
    return ranks.getReadOnlyProperty();
  }

  /** Selects a ranked head in the main view (as a click on its thumbnail). */
  public void open(Ranked r) {
    if (r != null) {
      session.select(r.head());
    }
  }

  /** Stops ranking. */
  public void clear() {
    chosen.set(NONE);
  }

  private void listChoices() {
    List<String> list = new ArrayList<>();
    list.add(NONE);
    builtIn.forEach(b -> list.add(b.name()));
    session.measures().values().forEach(m -> list.add(m.name()));
    String was = chosen.get();
    choices.setAll(list);
    // a measure its screen withdrew (or replaced by another name) can no longer rank; a choice box whose
    // items were replaced may have cleared its value through the binding, which would leave the box blank
    chosen.set(was != null && list.contains(was) ? was : NONE);
  }

  private String keyOfBuiltIn(String name) {
    return builtIn.stream().filter(b -> b.name().equals(name)).map(BuiltIn::key).findFirst().orElse(null);
  }

  private boolean defaultLargestFirst(String name) {
    for (BuiltIn b : builtIn) {
      if (b.name().equals(name)) {
        return b.largestFirst();
      }
    }
    for (HeadMeasure m : session.measures().values()) {
      if (m.name().equals(name)) {
        return m.largestFirst();
      }
    }
    return true;
  }

  /** The chosen number of every head, {@code [layer][head]}; null when nothing is chosen or known. */
  double[][] values() {
    String name = chosen.get();
    for (BuiltIn b : builtIn) {
      if (b.name().equals(name)) {
        if (scores.isEmpty()) {
          return null;
        }
        int layers = scores.stream().mapToInt(s -> s.head().layer()).max().orElse(-1) + 1;
        int heads = scores.stream().mapToInt(s -> s.head().head()).max().orElse(-1) + 1;
        double[][] v = new double[layers][heads];
        for (double[] row : v) {
          java.util.Arrays.fill(row, Double.NaN);
        }
        for (HeadScore s : scores) {
          v[s.head().layer()][s.head().head()] = b.of().applyAsDouble(s);
        }
        return v;
      }
    }
    for (HeadMeasure m : session.measures().values()) {
      if (m.name().equals(name)) {
        return m.values();
      }
    }
    return null;
  }

  private void rank() {
    double[][] v = values();
    List<Ranked> all = new ArrayList<>();
    if (v != null) {
      List<Head> heads = new ArrayList<>();
      for (int l = 0; l < v.length; l++) {
        for (int h = 0; h < v[l].length; h++) {
          if (!Double.isNaN(v[l][h])) {
            heads.add(new Head(l, h));
          }
        }
      }
      Comparator<Head> byValue = Comparator.comparingDouble(h -> v[h.layer()][h.head()]);
      if (largestFirst.get()) {
        byValue = byValue.reversed();
      }
      heads.sort(byValue.thenComparingInt(Head::layer).thenComparingInt(Head::head));
      int n = Math.min(Math.max(1, top.get()), heads.size());
      for (int i = 0; i < n; i++) {
        Head h = heads.get(i);
        all.add(new Ranked(i + 1, h, v[h.layer()][h.head()]));
      }
    }
    // the same ranking again (the scores of a rerun that changed nothing) leaves the list and its buttons be
    if (!ranked.equals(all)) {
      ranked.setAll(all);
    }
    Map<Head, Integer> places = new LinkedHashMap<>();
    all.forEach(r -> places.put(r.head(), r.rank()));
    ranks.set(Map.copyOf(places));
  }

  /** A value as the list shows it: three decimals, or a signed one for the signed measures. */
  static String format(double v) {
    return Math.abs(v) >= 100 ? String.format(Locale.ROOT, "%.1f", v) : String.format(Locale.ROOT, "%.3f", v);
  }
}
