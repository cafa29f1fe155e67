package io.headscope.app.cli;

import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.AtomicOutput;
import io.headscope.model.store.HeadSets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * Everything a command line reads, known before it runs: every file option and parameter but {@code --out}
 * (a corpus, a treebank, merge's parts), the models it opens ({@code --model}, given or by default, and
 * compare's {@code --with}: a model folder whole, an ONNX file with its tokenizer, the model cache) and the
 * head-sets file ({@code --disable @NAME}). Read from picocli's parse result, so every command, and every
 * command added later, protects its inputs from its outputs without a line of its own: no output is among
 * them or inside a model folder or the cache, --force or not ({@code ablate --model DIR --out
 * DIR/model.safetensors --force}, {@code html --out $HEADSCOPE_HEAD_SETS --force}).
 */
final class InputFiles {
  /** The options that name a model, as {@code --model} does (not typed Path: a name or Hub id is no file). */
  private static final Set<String> MODEL_OPTIONS = Set.of("--model", "--with");

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

  /**
   * Over {@code headscope serve}, a request's input file must be a regular file: the server's own standard
   * input ({@code /dev/stdin}) is the protocol stream, whose later requests a corpus read would eat, and a
   * pipe or a device no request can feed would hold the server's one worker forever. (The command line
   * reads pipes: {@code --corpus <(...)}.) A path that does not exist is left to the command to name.
   */
  private static void requireRegularFileWhenServed(Path p) {
    if (!java.nio.file.Files.exists(p)) {
      return;
    }
    for (int fd = 0; fd <= 2; fd++) {
      try {
        if (java.nio.file.Files.isSameFile(p, Path.of("/proc/self/fd/" + fd))) {
          throw new io.headscope.model.core.HeadScopeException(p + " is the server's own standard "
              + (fd == 0 ? "input (the stream its requests come on)" : fd == 1 ? "output (the stream of its answers)"
              : "error") + "; give a file of the inputs instead.");
        }
      } catch (java.io.IOException | UnsupportedOperationException e) {
        // no /proc here: the regular-file rule below still holds
      }
    }
    if (java.nio.file.Files.isRegularFile(p)) {
      return;
    }
    String what = java.nio.file.Files.isDirectory(p) ? "a folder" : describe(p);
    throw new io.headscope.model.core.HeadScopeException(p + " is " + what + ", not a regular file; over the "
        + "protocol inputs are read from regular files only (a request cannot feed a pipe): write the inputs to a "
        + "file and give its path.");
  }

  /** What a path that is no regular file is, following links (a FIFO, a device, a socket). */
  private static String describe(Path p) {
    try {
      int type = ((Integer) java.nio.file.Files.getAttribute(p, "unix:mode")) & 0170000;
      return switch (type) {
        case 0020000 -> "a character device";
        case 0060000 -> "a block device";
        case 0010000 -> "a named pipe (FIFO)";
        case 0140000 -> "a socket";
        default -> "a special file";
      };
    } catch (java.io.IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return "a special file";
    }
  }

  /** The models' files and folders the command opens, by its model options (a default counts too). */
  static ModelRepository.Inputs models(ParseResult parsed) {
    List<Path> files = new ArrayList<>();
    Map<Path, String> folders = new LinkedHashMap<>();
    ParseResult last = parsed;
    while (last.subcommand() != null) {
      last = last.subcommand();
    }
    ModelRepository repository = ModelRepository.standard();
    for (String name : MODEL_OPTIONS) {
      OptionSpec o = last.commandSpec().findOption(name);
      if (o != null && o.getValue() instanceof String spec) {
        ModelRepository.Inputs in = repository.inputsOf(spec);
        files.addAll(in.files());
        folders.putAll(in.folders());
      }
    }
    return new ModelRepository.Inputs(files, folders);
  }

  /** Runs the parsed command with every file and folder it reads protected from its outputs. */
  static int execute(ParseResult parsed) throws Exception {
    if (Output.servingRequests()) {
      of(parsed).forEach(InputFiles::requireRegularFileWhenServed);
    }
    List<Path> files = new ArrayList<>(of(parsed));
    ModelRepository.Inputs models = models(parsed);
    files.addAll(models.files());
    files.add(HeadSets.standardFile()); // the user's saved sets, read by any --disable @NAME
    try (AutoCloseable protect = AtomicOutput.protectInputs(files, models.folders())) {
      return new CommandLine.RunLast().execute(parsed);
    }
  }
}
