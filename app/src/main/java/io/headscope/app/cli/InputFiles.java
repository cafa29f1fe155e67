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
    List<Path> files = new ArrayList<>(of(parsed));
    ModelRepository.Inputs models = models(parsed);
    files.addAll(models.files());
    files.add(HeadSets.standardFile()); // the user's saved sets, read by any --disable @NAME
    try (AutoCloseable protect = AtomicOutput.protectInputs(files, models.folders())) {
      return new CommandLine.RunLast().execute(parsed);
    }
  }
}
