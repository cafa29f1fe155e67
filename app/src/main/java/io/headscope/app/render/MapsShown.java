package io.headscope.app.render;

/**
 * Which maps the grid and the head view show while heads are switched off: the intact model's, the
 * maps as the model ran them with the heads off (the layers above a switched-off head attend
 * differently), or the difference as run − intact on a diverging scale.
 */
public enum MapsShown {
  INTACT("intact"),
  AS_RUN("as run"),
  DIFFERENCE("difference");

  private final String label;

  MapsShown(String label) {
    this.label = label;
  }

  @Override
  public String toString() {
    return label;
  }
}
