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
    System.exit(HeadScopeCli.run(argsAsUtf8(args)));
  }

  /**
   * Under a POSIX locale ({@code LC_ALL=C}, the default in many containers) the JVM decodes the
   * command line as ASCII and silently drops every other character ({@code café} arrives as
   * {@code caf}). Linux keeps the raw bytes in {@code /proc/self/cmdline}: read the arguments from
   * there as UTF-8, checking that the ASCII ones match what the JVM saw.
   */
  static String[] argsAsUtf8(String[] args) {
    String encoding = System.getProperty("sun.jnu.encoding", "UTF-8");
    java.nio.file.Path cmdline = java.nio.file.Path.of("/proc/self/cmdline");
    if (args.length == 0 || encoding.equalsIgnoreCase("UTF-8") || !java.nio.file.Files.isReadable(cmdline)) {
      return args;
    }
    try {
      byte[] raw = java.nio.file.Files.readAllBytes(cmdline);
      java.util.List<String> all = new java.util.ArrayList<>();
      int start = 0;
      for (int i = 0; i < raw.length; i++) {
        if (raw[i] == 0) {
          all.add(new String(raw, start, i - start, java.nio.charset.StandardCharsets.UTF_8));
          start = i + 1;
        }
      }
      if (all.size() < args.length) {
        return args;
      }
      String[] decoded = all.subList(all.size() - args.length, all.size()).toArray(String[]::new);
      for (int i = 0; i < args.length; i++) {
        boolean ascii = decoded[i].chars().allMatch(c -> c < 128);
        if (ascii && !decoded[i].equals(args[i])) {
          return args; // not the layout we expected (an @argfile?): keep what the JVM gave
        }
      }
      return decoded;
    } catch (java.io.IOException | RuntimeException e) {
      return args;
    }
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
