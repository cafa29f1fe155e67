package io.headscope.app;

import io.headscope.app.cli.HeadScopeCli;

/**
 * The main class: no arguments opens the desktop app, anything else runs the command line.
 *
 * <p>It is deliberately not a JavaFX {@code Application}: launching one from the class path needs a
 * plain main class in front of it.
 */
public final class Launcher {
  /**
   * JavaFX warns on every start that it was loaded from the class path rather than as modules; that is
   * how HeadScope ships it (see the class comment), so the warning is noise. Held here so it is not
   * collected and its level kept.
   */
  private static final java.util.logging.Logger JAVAFX_LOG = java.util.logging.Logger.getLogger("javafx");

  private Launcher() {}

  public static void main(String[] args) {
    if (args.length == 0) {
      if (noDisplay()) {
        System.err.println("headscope: there is no display to open the window on (DISPLAY is not set). "
            + "Run it on a desktop or under xvfb-run, or use a command: ./headscope --help");
        System.exit(1);
      }
      JAVAFX_LOG.setLevel(java.util.logging.Level.SEVERE);
      try {
        io.headscope.app.gui.HeadScopeApp.launchApp(args);
      } catch (UnsupportedOperationException | IllegalStateException e) {
        // JavaFX could not start its toolkit: a display that cannot be opened, or GTK missing
        System.err.println("headscope: cannot open the window: " + e.getMessage()
            + ". Check the display (DISPLAY=" + System.getenv("DISPLAY") + ") and that GTK 3 is installed "
            + "(apt-get install libgtk-3-0), or use a command: ./headscope --help");
        System.exit(1);
      }
      return;
    }
    System.exit(HeadScopeCli.run(args));
  }

  /** On Linux and the BSDs the window needs an X or Wayland display; JavaFX fails with a stack trace without one. */
  static boolean noDisplay() {
    String os = System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT);
    boolean x11 = !os.contains("win") && !os.contains("mac");
    return x11 && isBlank(System.getenv("DISPLAY")) && isBlank(System.getenv("WAYLAND_DISPLAY"));
  }

  private static boolean isBlank(String s) {
    return s == null || s.isBlank();
  }
}
