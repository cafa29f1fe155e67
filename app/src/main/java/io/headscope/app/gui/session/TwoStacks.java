package io.headscope.app.gui.session;

import io.headscope.model.EncoderDecoderModel;
import io.headscope.model.EncoderDecoderTrace;
import io.headscope.model.core.AttentionKind;

/**
 * The loaded encoder-decoder (T5, BART), when the model is one: which kind of maps the grid and the head view
 * show (encoder self-attention, decoder self-attention, cross-attention, as BertViz's head and model views
 * choose), and the current source and target run intact and with the switched-off heads. The single-stack
 * model of the session is then null.
 *
 * @param model the encoder-decoder
 * @param kind the maps shown
 * @param intact the current source and target with every head on (null before the first input)
 * @param asRun the same with the switched-off heads of every kind (the intact trace itself when none is off)
 */
public record TwoStacks(EncoderDecoderModel model, AttentionKind kind, EncoderDecoderTrace intact,
    EncoderDecoderTrace asRun) {

  /** This state with other maps shown. */
  public TwoStacks showing(AttentionKind k) {
    return new TwoStacks(model, k, intact, asRun);
  }

  /** The family's name: T5 or BART. */
  public String family() {
    return model.config().family().displayName;
  }

  /**
   * The one line every screen besides All heads shows for an encoder-decoder: what it is, why the screen has
   * nothing for it, and where its maps are.
   */
  public static String refusal(TwoStacks t) {
    return t.model().name() + " is a " + t.family() + " encoder-decoder: this screen reads single-stack models "
        + "only; its encoder, decoder and cross maps, head switches and next target tokens are under All heads.";
  }
}
