package io.headscope.app.gui.style;

import javafx.css.PseudoClass;

/**
 * The states headscope.css styles, as pseudo-classes: a node's look follows its state through the
 * stylesheet instead of through style strings put together in Java.
 */
public final class States {
  /** A switched-off head (thumbnail, panel title), or a prediction that changed because of one. */
  public static final PseudoClass OFF = PseudoClass.getPseudoClass("off");
  /** The head shown in the head view. */
  public static final PseudoClass SELECTED = PseudoClass.getPseudoClass("selected");
  /** A head picked with Ctrl-click. */
  public static final PseudoClass PICKED = PseudoClass.getPseudoClass("picked");
  /** Something filtered out but kept in place (a hidden legend category). */
  public static final PseudoClass FADED = PseudoClass.getPseudoClass("faded");
  /** A prediction that differs once heads are off. */
  public static final PseudoClass CHANGED = PseudoClass.getPseudoClass("changed");
  /** Token chips: [MASK], another special token, a token of the second sentence. */
  public static final PseudoClass MASK = PseudoClass.getPseudoClass("mask");
  public static final PseudoClass SPECIAL = PseudoClass.getPseudoClass("special");
  public static final PseudoClass SECOND = PseudoClass.getPseudoClass("second");

  /** A result shown while a newer input is being analysed. */
  public static final PseudoClass STALE = PseudoClass.getPseudoClass("stale");
  /** An input cut to fit the model (the text field, the token strip's last chip). */
  public static final PseudoClass TRUNCATED = PseudoClass.getPseudoClass("truncated");

  /** A head among the top ones of the grid's ranking. */
  public static final PseudoClass RANKED = PseudoClass.getPseudoClass("ranked");

  private States() {}
}
