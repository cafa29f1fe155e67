package io.headscope.app.cli;

import io.headscope.model.HeadScopeException;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The command line: one sub-command per service, one-line errors, no stack traces for user mistakes. */
@Command(
    name = "headscope",
    mixinStandardHelpOptions = true,
    version = "HeadScope 0.1.0",
    description = "Look inside BERT's attention heads. Without a command, opens the desktop app.",
    subcommands = {AttentionCommand.class, PredictCommand.class, ClassifyCommand.class, TokenTypesCommand.class,
        AblateCommand.class, ImportanceCommand.class, RenderCommand.class, CommandLine.HelpCommand.class})
public final class HeadScopeCli {

  /** Runs the CLI and returns the exit code: 0 ok, 1 a problem with the input, 2 a bad command line. */
  public static int run(String... args) {
    CommandLine cli = new CommandLine(new HeadScopeCli());
    cli.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
      PrintWriter err = commandLine.getErr();
      Throwable cause = ex;
      while (!(cause instanceof HeadScopeException) && cause.getCause() != null) {
        cause = cause.getCause();
      }
      if (cause instanceof HeadScopeException) {
        err.println("headscope: " + cause.getMessage());
        err.flush();
        return 1;
      }
      err.println("headscope: internal error: " + ex + " (please report it; set HEADSCOPE_DEBUG=1 for details)");
      if (System.getenv("HEADSCOPE_DEBUG") != null) {
        ex.printStackTrace(err);
      }
      err.flush();
      return 3;
    });
    cli.setParameterExceptionHandler((ex, a) -> {
      PrintWriter err = ex.getCommandLine().getErr();
      err.println("headscope: " + ex.getMessage() + " (see: headscope " + ex.getCommandLine().getCommandName()
          + " --help)");
      err.flush();
      return 2;
    });
    return cli.execute(args);
  }
}
