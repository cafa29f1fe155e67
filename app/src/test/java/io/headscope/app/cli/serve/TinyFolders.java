package io.headscope.app.cli.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.headscope.app.cli.HeadScopeCli;
import io.headscope.model.encoderdecoders.EncoderDecoderFolders;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes tiny random checkpoints in their hub layouts for the Python bridge's tests (python/tests), which have no
 * Java of their own to make them: {@code java -cp <test class path> io.headscope.app.cli.serve.TinyFolders DIR
 * TYPES SEED [RUN...]} writes {@code DIR/TYPE} for each of the comma-separated {@code TYPES} (the folders the Java
 * tests write, {@link EncoderDecoderFolders}) and prints one line of JSON per type: the folder, and the source and
 * target whose ids the Java tests worked out by hand.
 *
 * <p>Each {@code RUN} is a JSON array, a command and its extra options ({@code ["predict","--top","3"]}): it is run
 * on every folder as {@code headscope COMMAND --model FOLDER --text SOURCE --target TARGET OPTIONS...} through the
 * command line's own entry ({@link HeadScopeCli#run}, what {@code ./headscope} calls), and its printed JSON goes
 * into the type's line under {@code runs}. The Python tests compare the bridge's server with these: a process of
 * its own, as {@code ./headscope} would be, but one JVM start for every comparison instead of one per command.
 */
public final class TinyFolders {
  private static final ObjectMapper JSON = new ObjectMapper();

  private TinyFolders() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 3) {
      System.err.println("usage: TinyFolders DIR t5|t5v11|bart[,...] SEED [RUN...]");
      System.exit(2);
    }
    List<String> lines = new ArrayList<>();
    for (String type : args[1].split(",")) {
      Path folder = EncoderDecoderFolders.write(type, Path.of(args[0]).resolve(type), Long.parseLong(args[2]));
      ObjectNode line = JSON.createObjectNode();
      line.put("folder", folder.toAbsolutePath().toString());
      line.put("source", EncoderDecoderFolders.source(type));
      line.put("target", EncoderDecoderFolders.target(type));
      long[] s = EncoderDecoderFolders.sourceIds(type);
      long[] t = EncoderDecoderFolders.targetIds(type);
      java.util.Arrays.stream(s).forEach(line.putArray("source_ids")::add);
      java.util.Arrays.stream(t).forEach(line.putArray("target_ids")::add);
      ArrayNode runs = line.putArray("runs");
      for (int i = 3; i < args.length; i++) {
        JsonNode run = JSON.readTree(args[i]);
        List<String> cli = new ArrayList<>(List.of(run.get(0).asText(), "--model", folder.toString(), "--text",
            EncoderDecoderFolders.source(type), "--target", EncoderDecoderFolders.target(type)));
        for (int j = 1; j < run.size(); j++) {
          cli.add(run.get(j).asText());
        }
        ObjectNode r = runs.addObject();
        r.set("args", run);
        r.set("out", JSON.readTree(cli(cli.toArray(String[]::new))));
      }
      lines.add(JSON.writeValueAsString(line));
    }
    lines.forEach(System.out::println);
  }

  /** The command line's printed output; a failed command ends this process with its error. */
  private static String cli(String... args) {
    PrintStream out = System.out;
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    int code;
    try {
      System.setOut(new PrintStream(buffer, true, StandardCharsets.UTF_8));
      code = HeadScopeCli.run(args);
    } finally {
      System.setOut(out);
    }
    if (code != 0) {
      System.err.println("headscope " + String.join(" ", args) + " exited " + code);
      System.exit(1);
    }
    return buffer.toString(StandardCharsets.UTF_8);
  }
}
