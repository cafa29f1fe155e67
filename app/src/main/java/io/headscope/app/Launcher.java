package io.headscope.app;

import io.headscope.app.cli.HeadScopeCli;

/**
 * The main class: no arguments opens the desktop app, anything else runs the command line.
 *
 * <p>It is deliberately not a JavaFX {@code Application}: launching one from the class path needs a
 * plain main class in front of it.
 */
public final class Launcher {
  private Launcher() {}

  public static void main(String[] args) {
    if (args.length == 0) {
      io.headscope.app.gui.HeadScopeApp.launchApp(args);
      return;
    }
    System.exit(HeadScopeCli.run(args));
  }
}
