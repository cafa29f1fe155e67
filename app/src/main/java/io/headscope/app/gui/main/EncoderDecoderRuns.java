package io.headscope.app.gui.main;

import io.headscope.app.gui.session.Session;
import io.headscope.app.gui.session.TwoStacks;
import io.headscope.model.AttentionTrace;
import io.headscope.model.EncoderDecoderModel;
import io.headscope.model.EncoderDecoderTrace;
import io.headscope.model.core.AttentionKind;
import io.headscope.model.core.EncoderDecoderMask;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.tokenizer.Encoding;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;

/**
 * The main window on an encoder-decoder (T5, BART): the source and the target it runs, which kind of maps the
 * grid and the head view show (encoder, decoder, cross), and the heads switched off in each kind. The runs are
 * the service the CLI's {@code attention --target} and {@code predict --target} call ({@link
 * EncoderDecoderModel#trace}); this only chooses what to run and what to show.
 *
 * <p>The grid, the head view and the switches read the session's traces and mask as for a single stack: the
 * traces hold the shown kind's maps (for cross, target queries by source keys) and the session's mask is the
 * shown kind's; the other kinds' switches wait here until their kind is shown again.
 */
public final class EncoderDecoderRuns {
  private final MainViewModel main;
  private final Session session;
  private final ReadOnlyObjectWrapper<AttentionKind> kind = new ReadOnlyObjectWrapper<>(AttentionKind.CROSS);
  /** The heads off in the kinds not shown (the shown kind's are the session's mask). */
  private final Map<AttentionKind, HeadMask> off = new EnumMap<>(AttentionKind.class);

  EncoderDecoderRuns(MainViewModel main, Session session) {
    this.main = main;
    this.session = session;
  }

  /** The kind of maps shown: cross-attention at first (the view BertViz's users ask for most). */
  public ReadOnlyObjectProperty<AttentionKind> kindProperty() {
    return kind.getReadOnlyProperty();
  }

  /** The layers and heads of a kind: the encoder's, or the decoder's (its self- and cross-attention). */
  static int[] shape(EncoderDecoderModel m, AttentionKind k) {
    boolean decoder = k != AttentionKind.ENCODER;
    return new int[] {m.config().layers(decoder), m.config().heads(decoder)};
  }

  /** A newly loaded encoder-decoder: no single-stack model, no switches, its shape for the kind shown. */
  void opened(EncoderDecoderModel m) {
    off.clear();
    session.setTraces(null, null);
    session.setModel(null);
    session.setTwoStacks(new TwoStacks(m, kind.get(), null, null));
    int[] s = shape(m, kind.get());
    main.showShape(m.name(), s[0], s[1]);
    main.say(m.name() + ": " + m.config().family().displayName + " encoder-decoder, encoder " + m.config().encoderLayers()
        + " layers × " + m.config().encoderHeads() + " heads, decoder " + m.config().decoderLayers() + " × "
        + m.config().decoderHeads() + " (self and cross)");
  }

  /**
   * Shows another kind of maps: the grid takes that kind's shape, the switches become that kind's (the others
   * are kept), and the maps of the current source and target are shown without a new run.
   */
  public void setKind(AttentionKind k) {
    TwoStacks t = session.twoStacks();
    if (k == null || k == kind.get() || t == null) {
      return;
    }
    off.put(kind.get(), session.mask());
    HeadMask next = off.getOrDefault(k, HeadMask.NONE).withMode(session.mask().mode());
    off.remove(k);
    kind.set(k);
    TwoStacks shown = t.showing(k);
    session.setTwoStacks(shown);
    session.setMask(next);
    main.clearSwitchHistory(); // an undo of a cross switch must not act on the encoder's heads
    int[] s = shape(t.model(), k);
    Head h = session.selected();
    if (h == null || h.layer() >= s[0] || h.head() >= s[1]) {
      session.select(new Head(0, 0));
    }
    session.setSelection(java.util.Set.of());
    main.showShape(t.model().name(), s[0], s[1]);
    show(shown);
  }

  /** Every kind's switches in the session's mode: the shown kind's from the session, the others' from here. */
  public EncoderDecoderMask mask() {
    HeadMask.Mode mode = session.mask().mode();
    EncoderDecoderMask m = EncoderDecoderMask.NONE;
    for (AttentionKind k : AttentionKind.values()) {
      HeadMask h = k == kind.get() ? session.mask() : off.getOrDefault(k, HeadMask.NONE);
      m = m.with(k, h.withMode(mode));
    }
    return m;
  }

  /** Runs the source and the target, intact and with the switches (the intact run kept while the input stays). */
  void analyse(String source, String target) {
    TwoStacks t = session.twoStacks();
    if (t == null) {
      return;
    }
    long gen = main.nextGeneration();
    if (source.isEmpty() || target.isEmpty()) {
      session.setTwoStacks(new TwoStacks(t.model(), kind.get(), null, null));
      session.setTraces(null, null);
      main.inputShown(false, "");
      main.say(source.isEmpty() && target.isEmpty()
          ? "Type a source and a target: the decoder reads the target (with its own special tokens) and attends to the source."
          : source.isEmpty() ? "The source is empty: type what the encoder reads." : "The target is empty: type what "
              + "the decoder reads (its next token is predicted at each target position).");
      return;
    }
    EncoderDecoderModel m = t.model();
    EncoderDecoderMask mask = mask();
    EncoderDecoderTrace cached = t.intact() != null && sameText(t.intact(), m, source, target) ? t.intact() : null;
    main.begin("Running " + m.name() + " on the source and the target…");
    session.worker().submit(p -> {
      if (gen != main.generation()) {
        return null;
      }
      EncoderDecoderTrace intact = cached != null ? cached : m.trace(source, target, EncoderDecoderMask.NONE, MainViewModel.TOP_K);
      EncoderDecoderTrace asRun = mask.isEmpty() ? intact : m.trace(source, target, mask, MainViewModel.TOP_K);
      return new TwoStacks(m, kind.get(), intact, asRun);
    }, done -> {
      main.end();
      if (done == null || gen != main.generation() || session.twoStacks() == null
          || session.twoStacks().model() != m) {
        return;
      }
      TwoStacks shown = done.showing(kind.get());
      session.setTwoStacks(shown);
      show(shown);
    }, e -> {
      main.end();
      if (gen == main.generation()) {
        main.fail(e);
      }
    });
  }

  private static boolean sameText(EncoderDecoderTrace t, EncoderDecoderModel m, String source, String target) {
    return java.util.Arrays.equals(t.source().ids(), m.encode(source).ids())
        && java.util.Arrays.equals(t.target().ids(), m.encode(target).ids());
  }

  /** The shown kind's maps into the session's traces, and the status line. */
  private void show(TwoStacks t) {
    if (t.intact() == null) {
      session.setTraces(null, null);
      return;
    }
    AttentionTrace intact = asTrace(t.intact(), t.kind());
    AttentionTrace run = t.asRun() == t.intact() ? intact : asTrace(t.asRun(), t.kind());
    String[] text = main.typedText();
    session.setTraces(intact, run, text[0], text[1]);
    // every kind's per-head numbers (first token's share, entropy, largest weight, the end token's share): a cross
    // map's rows are the target's queries and its keys the source's tokens, each row a distribution over them
    io.headscope.model.HeadSummaries sums = intact.summaries(io.headscope.model.TraceRequest.DEFAULT_THUMBNAIL_SIDE);
    main.publishOrWithdraw(sums);
    List<String> keys = t.kind() == AttentionKind.ENCODER || t.kind() == AttentionKind.CROSS
        ? t.intact().source().tokens() : t.intact().target().tokens();
    int end = endKey(keys);
    main.publishOrWithdrawEnd(end < 0 ? null : keys.get(end), end < 0 ? null : endShares(sums, keys));
    Encoding s = t.intact().source();
    Encoding g = t.intact().target();
    main.inputShown(false, s.wasTruncated() || g.wasTruncated()
        ? "✂ cut to the model's " + t.model().config().maxTokens() + " positions" : "");
    EncoderDecoderMask m = t.asRun().mask();
    StringBuilder offs = new StringBuilder();
    for (AttentionKind k : AttentionKind.values()) {
      int n = m.of(k).off().size();
      if (n > 0) {
        offs.append("; ").append(n).append(' ').append(k.label).append(n == 1 ? " head off" : " heads off");
      }
    }
    if (!m.isEmpty()) {
      offs.append(" (").append(session.mask().mode().name().toLowerCase(Locale.ROOT)).append(')');
    }
    main.say(s.length() + " source tokens, " + g.length() + " target tokens · " + describe(t.kind()) + offs);
  }

  /** The first key after key 0 of the end token's type ({@code </s>}, BERT's {@code [SEP]}), or -1. */
  static int endKey(List<String> keys) {
    for (int j = 1; j < keys.size(); j++) {
      if (io.headscope.analysis.heads.TokenType.of(keys.get(j)) == io.headscope.analysis.heads.TokenType.SEP) {
        return j;
      }
    }
    return -1;
  }

  /**
   * Each head's share of attention on the end tokens ({@code </s>} keys after key 0): the mean over query rows of
   * the weight on them, summed over those keys, from the summaries' received weights.
   */
  static double[][] endShares(io.headscope.model.HeadSummaries s, List<String> keys) {
    double[][] out = new double[s.layers()][s.heads()];
    for (int l = 0; l < s.layers(); l++) {
      for (int h = 0; h < s.heads(); h++) {
        float[] received = s.received()[l][h];
        for (int j = 1; j < received.length; j++) {
          if (io.headscope.analysis.heads.TokenType.of(keys.get(j)) == io.headscope.analysis.heads.TokenType.SEP) {
            out[l][h] += received[j];
          }
        }
      }
    }
    return out;
  }

  /** What a kind's maps are, for the status line and the selector's tooltips. */
  public static String describe(AttentionKind k) {
    return switch (k) {
      case ENCODER -> "encoder self-attention (source × source)";
      case DECODER -> "decoder self-attention (target × target, causal)";
      case CROSS -> "cross-attention (target query × source key)";
    };
  }

  /**
   * One kind's maps as a trace the grid reads: its query tokens' encoding (the source's for the encoder, the
   * target's for the decoder and cross), the kind's switched-off heads, the maps themselves (as run: the engine
   * keeps each pattern after its switch, so a head off in zero mode shows zeros).
   */
  static AttentionTrace asTrace(EncoderDecoderTrace t, AttentionKind k) {
    Encoding queries = k == AttentionKind.ENCODER ? t.source() : t.target();
    return new AttentionTrace(t.model(), queries, t.mask().of(k), AttentionTrace.Maps.AS_RUN, t.maps(k), null, null,
        List.of(), null, null);
  }
}
