package io.headscope.app.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * The files a command line names as inputs: every file option and parameter but {@code --out}. Read from
 * picocli's parse result, so every command, and every command added later, protects its inputs from
 * its outputs without a line of its own ({@code merge --force --out part1.jsonl part1.jsonl ...}).
 */
final class InputFiles {
  private InputFiles() {}

  static List<Path> of(ParseResult parsed) {
    List<Path> files = new ArrayList<>();
    for (ParseResult p = parsed; p != null; p = p.subcommand()) {
      for (ArgSpec arg : p.matchedArgs()) {
        if (arg instanceof OptionSpec o && o.longestName().equals("--out")) {
          continue;
        }
        Object value = arg.getValue();
        if (value instanceof Path path) {
          files.add(path);
        } else if (value instanceof Collection<?> values) {
          values.stream().filter(Path.class::isInstance).map(Path.class::cast).forEach(files::add);
        }
      }
    }
    return files;
  }

  /** Runs the parsed command with its input files protected from its outputs. */
  static int execute(ParseResult parsed) throws Exception {
    try (AutoCloseable protect = io.headscope.model.store.AtomicOutput.protectInputs(of(parsed))) {
      return new CommandLine.RunLast().execute(parsed);
    }
  }
}
