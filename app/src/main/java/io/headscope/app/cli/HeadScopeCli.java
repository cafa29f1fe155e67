package io.headscope.app.cli;

import io.headscope.model.core.HeadScopeException;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine;

/** The command line: one sub-command per service, one-line errors, no stack traces for user mistakes. */
@Command(
    name = "headscope",
    mixinStandardHelpOptions = true,
    version = "HeadScope " + HeadScopeCli.VERSION,
    description = "Look inside the attention heads of BERT and its family (RoBERTa, XLM-R, DistilBERT, ELECTRA, "
        + "ALBERT, ModernBERT), the decoders (GPT-2, GPT-NeoX/Pythia, Llama, Qwen2, Mistral, Gemma) and the "
        + "encoder-decoders (T5, BART). Without a command, opens the desktop app.",
    subcommands = {AttentionCommand.class, PredictCommand.class, ClassifyCommand.class, TokenTypesCommand.class,
        AblateCommand.class, PatchCommand.class, EdgesCommand.class, CircuitCommand.class, CompositionCommand.class, DetectCommand.class, ImportanceCommand.class, PruneCommand.class, HeadDistancesCommand.class, RenderCommand.class, SyntaxCommand.class, CorefCommand.class, RolloutCommand.class, JacobianCommand.class, LayersCommand.class, FavorCommand.class, CompareCommand.class, MergeCommand.class,
        FinetuneCommand.class,
        LensCommand.class,
        SaliencyCommand.class,
        ServeCommand.class,
        HtmlCommand.class,
        RunCommand.class,
        CommandLine.HelpCommand.class})
public final class HeadScopeCli {
  /** The release, as --version and the serve protocol's greeting give it. */
  public static final String VERSION = "0.1.0";

  /** Runs the CLI and returns the exit code: 0 ok, 1 a problem with the input, 2 a bad command line. */
  public static int run(String... args) {
    CommandLine cli = new CommandLine(new HeadScopeCli());
    // "@gender" in a head list names a saved head set (HeadSets); picocli would instead read a file
    // "gender" when one happens to lie in the working folder
    cli.setExpandAtFiles(false);
    // a command's input files are never replaced by its outputs (InputFiles)
    cli.setExecutionStrategy(parsed -> {
      try {
        return InputFiles.execute(parsed);
      } catch (CommandLine.ExecutionException | CommandLine.ParameterException e) {
        throw e;
      } catch (Exception e) {
        throw new CommandLine.ExecutionException(cli, "closing the input files' protection", e);
      }
    });
    cli.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
      PrintWriter err = commandLine.getErr();
      Throwable cause = ex;
      while (!(cause instanceof HeadScopeException) && cause.getCause() != null) {
        cause = cause.getCause();
      }
      if (cause instanceof HeadScopeException) {
        err.println("headscope: " + cause.getMessage());
        err.flush();
        return cause instanceof UsageException ? 2 : 1;
      }
      if (cause instanceof java.nio.file.InvalidPathException bad) {
        // under a POSIX locale the JVM cannot map a non-ASCII file name to bytes
        err.println("headscope: the file name \"" + bad.getInput() + "\" cannot be used under the current locale ("
            + System.getProperty("sun.jnu.encoding") + "); run with LC_ALL=C.UTF-8.");
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
      if (String.valueOf(ex.getMessage()).contains("InvalidPathException")) {
        // under a POSIX locale the JVM cannot map a non-ASCII file name to bytes
        err.println("headscope: a file name in the command line cannot be used under the current locale ("
            + System.getProperty("sun.jnu.encoding") + "): run with LC_ALL=C.UTF-8 (./headscope does).");
        err.flush();
        return 1;
      }
      err.println("headscope: " + ex.getMessage() + " (see: " + ex.getCommandLine().getCommandSpec().qualifiedName()
          + " --help)");
      err.flush();
      return 2;
    });
    try {
      return cli.execute(args);
    } catch (OutOfMemoryError e) {
      PrintWriter err = cli.getErr();
      err.println("headscope: out of memory (" + e.getMessage() + "); give Java more with "
          + "HEADSCOPE_JAVA_OPTS=\"-Xmx8g\" or use a smaller --batch.");
      err.flush();
      return 3;
    } catch (Error e) {
      // never a stack trace: one line, and the details on request
      PrintWriter err = cli.getErr();
      err.println("headscope: internal error: " + e + " (please report it; set HEADSCOPE_DEBUG=1 for details)");
      if (System.getenv("HEADSCOPE_DEBUG") != null) {
        e.printStackTrace(err);
      }
      err.flush();
      return 3;
    }
  }
}
