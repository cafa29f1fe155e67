package io.headscope.app.cli;

import io.headscope.app.cli.serve.Answer;
import io.headscope.app.cli.serve.LineTap;
import io.headscope.app.cli.serve.StdioServer;
import io.headscope.model.BertModel;
import io.headscope.model.core.BertConfig;
import java.io.FileInputStream;
import java.io.FileDescriptor;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;

/**
 * {@code headscope serve --stdio}: one process, the model loaded once, and every command of this CLI as a
 * request (docs/PROTOCOL.md). A request runs the same picocli command the command line runs, in this
 * process; three things differ, each a small switch the command never sees:
 * <ul>
 *   <li>{@link ModelOptions#open} lends the loaded model ({@link BertModel#borrowed}: its close is a no-op);
 *   <li>{@link Output} keeps what the command would print on standard output as the request's result;
 *   <li>{@link Cancellation} also stops when the request is cancelled.
 * </ul>
 * Standard output carries the protocol alone: it is kept here and {@code System.out} points at standard
 * error, so no stray print can break a line. The warnings and the error a command prints on standard
 * error are read back from there ({@link LineTap}).
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
    description = "A long-lived process for Python and other programs: loads the model once, then answers "
        + "requests (one JSON line each) on standard input with the results of the commands on standard "
        + "output. The protocol: docs/PROTOCOL.md.")
final class ServeCommand implements Callable<Integer> {
  @Option(names = "--stdio", description = "Requests on standard input, answers on standard output (the one transport).")
  boolean stdio;

  @Mixin ModelOptions model;

  /** The commands a request may run: those that write a result on standard output (not serve, help, finetune, render). */
  private final Map<String, CommandSpec> ops = new LinkedHashMap<>();

  @Override
  public Integer call() {
    if (!stdio) {
      throw new UsageException("serve speaks on standard input and output only: add --stdio (docs/PROTOCOL.md).");
    }
    // the protocol goes straight to file descriptor 1: System.out is a PrintStream, which swallows a failed
    // write (a client that closed its end), so the server would never learn that nobody reads any more
    java.io.OutputStream protocol = new java.io.FileOutputStream(FileDescriptor.out);
    LineTap tap = new LineTap(System.err);
    PrintStream err = new PrintStream(tap, true, StandardCharsets.UTF_8);
    System.setOut(err); // a stray print of any library lands on standard error, not in the protocol
    System.setErr(err);
    BertModel bert = null;
    io.headscope.model.EncoderDecoderModel pair = null;
    try {
      io.headscope.model.store.ModelFiles files = model.files();
      if (io.headscope.model.EncoderDecoderModel.describes(files)) {
        if (model.gelu != null) {
          throw new UsageException("--gelu overrides a single-stack model's activation; " + files.name()
              + " is an encoder-decoder (T5, BART), whose activation its config.json names: leave --gelu out.");
        }
        pair = io.headscope.model.EncoderDecoderModel.load(files);
      } else {
        bert = model.open();
      }
    } catch (RuntimeException e) {
      String message = e instanceof io.headscope.model.core.HeadScopeException || e instanceof UsageException ? e.getMessage()
          : "internal error: " + e + " (please report it; set HEADSCOPE_DEBUG=1 for details)";
      if (System.getenv("HEADSCOPE_DEBUG") != null) {
        e.printStackTrace();
      }
      StdioServer.refuse(protocol, message);
      System.err.println("headscope: " + message);
      return 1;
    }
    try {
      ModelOptions.serve(new ModelOptions.Served(model.model, model.gelu, bert, pair));
      for (Map.Entry<String, CommandLine> e : new CommandLine(new HeadScopeCli()).getSubcommands().entrySet()) {
        OptionSpec out = e.getValue().getCommandSpec().findOption("--out");
        // merge takes its parts as positional files, which no request can pass (and shard is refused)
        if (!List.of("serve", "help", "merge").contains(e.getKey())
            && (out == null || !out.required() || FILE_OPS.containsKey(e.getKey()))) {
          ops.put(e.getKey(), e.getValue().getCommandSpec());
        }
      }
      StdioServer.Model served;
      String name;
      if (bert != null) {
        BertConfig c = bert.config();
        name = bert.name();
        served = new StdioServer.Model(model.model, name, c.family().modelType, c.numHiddenLayers(),
            c.numAttentionHeads(), c.maxTokens(), c.family().causal(), model.offline, model.gelu);
      } else {
        io.headscope.model.core.EncoderDecoderConfig c = pair.config();
        name = pair.name();
        // layers and heads are the encoder's (the source's stack); the decoder's are greeted beside them
        served = new StdioServer.Model(model.model, name, c.family().modelType, c.encoderLayers(), c.encoderHeads(),
            c.maxTokens(), false, model.offline, model.gelu, new StdioServer.Decoder(c.decoderLayers(), c.decoderHeads()));
      }
      System.err.println("headscope: serving " + name + " on standard input and output (docs/PROTOCOL.md).");
      StdioServer server = new StdioServer(new FileInputStream(FileDescriptor.in), protocol, served,
          new Commands(tap), HeadScopeCli.VERSION, ClientWatch.start());
      RunCommand.exchange(server.exchange()); // run's Python hook functions ask the client through it
      return server.serve();
    } finally {
      RunCommand.exchange(null);
      ModelOptions.serve(null);
      if (bert != null) {
        bert.close();
      } else {
        pair.close();
      }
    }
  }

  /**
   * The commands whose result is a set of files (a required {@code --out}), served with a folder of the
   * server's: the op and the name its main file gets there.
   */
  static final Map<String, String> FILE_OPS = Map.of("syntax", "relations.csv", "coref", "coref.csv");

  /** The files a command wrote, as {@code {"relations.csv": "...", ...}} (text, sorted by name). */
  private static Answer files(java.nio.file.Path folder, List<String> warnings) {
    try (var list = java.nio.file.Files.list(folder)) {
      var node = new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode();
      for (java.nio.file.Path f : list.sorted().toList()) {
        node.put(f.getFileName().toString(), java.nio.file.Files.readString(f, StandardCharsets.UTF_8));
      }
      return Answer.result("files", new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsBytes(node), warnings);
    } catch (java.io.IOException e) {
      return Answer.failure(Answer.INTERNAL, "could not read the command's files: " + e.getMessage());
    }
  }

  private static void deleteAll(java.nio.file.Path folder) {
    try (var walk = java.nio.file.Files.walk(folder)) {
      for (java.nio.file.Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        java.nio.file.Files.deleteIfExists(p);
      }
    } catch (java.io.IOException e) {
      System.err.println("headscope: warning: could not remove " + folder + ": " + e.getMessage());
    }
  }

  /** A request as the command line it is, run in this process with its output and warnings kept. */
  private final class Commands implements StdioServer.Commands {
    private final LineTap tap;

    Commands(LineTap tap) {
      this.tap = tap;
    }

    @Override
    public List<String> ops() {
      return List.copyOf(ops.keySet());
    }

    @Override
    public Answer run(String op, List<String> options, AtomicBoolean cancelled) {
      CommandSpec spec = ops.get(op);
      List<String> argv = new ArrayList<>();
      argv.add(op);
      argv.addAll(options);
      // the server's model, unless the command names it itself (compare's --with is another model)
      if (spec.findOption("--model") != null) {
        argv.add("--model=" + model.model);
        if (model.offline) {
          argv.add("--offline");
        }
        if (model.gelu != null) {
          argv.add("--gelu=" + model.gelu);
        }
      }
      // a command that writes a set of CSVs (syntax, coref) writes them into a folder of its own, sent back
      // as one JSON object of file name to text, then removed
      java.nio.file.Path folder = null;
      if (FILE_OPS.containsKey(op)) {
        try {
          folder = java.nio.file.Files.createTempDirectory("headscope-serve-");
        } catch (java.io.IOException e) {
          return Answer.failure(Answer.INTERNAL, "could not make a temporary folder: " + e.getMessage());
        }
        argv.add("--out=" + folder.resolve(FILE_OPS.get(op)));
      }
      try {
        return runIn(argv, folder, cancelled);
      } finally {
        if (folder != null) {
          deleteAll(folder);
        }
      }
    }

    private Answer runIn(List<String> argv, java.nio.file.Path folder, AtomicBoolean cancelled) {
      List<String> lines = Collections.synchronizedList(new ArrayList<>());
      Output.Captured result = new Output.Captured();
      int code;
      tap.listen(lines::add);
      Output.captureInto(result);
      Cancellation.alsoWhen(cancelled::get);
      try {
        code = HeadScopeCli.run(argv.toArray(String[]::new));
      } finally {
        Cancellation.alsoWhen(null);
        Output.captureInto(null);
        tap.listen(null);
      }
      List<String> said = new ArrayList<>();
      List<String> warnings = new ArrayList<>();
      synchronized (lines) {
        for (String l : lines) {
          if (l.startsWith("headscope: warning: ")) {
            warnings.add(l.substring("headscope: ".length()));
          } else if (l.startsWith("headscope: ")) {
            said.add(l.substring("headscope: ".length()));
          }
        }
      }
      if (cancelled.get()) {
        return Answer.failure(Answer.CANCELLED, "cancelled.");
      }
      if (code == 0 && folder != null) {
        return files(folder, warnings);
      }
      if (code == 0) {
        if (result.format == null) { // nothing on standard output
          return Answer.result("json", "null".getBytes(StandardCharsets.UTF_8), warnings);
        }
        byte[] bytes = result.bytes.toByteArray();
        return result.format == Output.Format.NPZ ? Answer.binary(result.format.wireName(), bytes, warnings)
            : Answer.result(result.format.wireName(), bytes, warnings);
      }
      String error = said.isEmpty() ? "the command failed (exit code " + code + ")." : said.get(said.size() - 1);
      String kind = switch (code) {
        case 1 -> Answer.INPUT;
        case 2 -> Answer.USAGE;
        case 130 -> Answer.CANCELLED;
        default -> Answer.INTERNAL;
      };
      return Answer.failure(kind, error);
    }
  }
}
