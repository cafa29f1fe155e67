package io.headscope.app.cli.serve;

import io.headscope.model.encoderdecoders.EncoderDecoderFolders;
import java.nio.file.Path;

/**
 * Writes tiny random checkpoints in their hub layouts for the Python bridge's tests (python/tests), which have no
 * Java of their own to make them: {@code java -cp <test class path> io.headscope.app.cli.serve.TinyFolders DIR
 * TYPE SEED} writes {@code DIR/TYPE} (the folders the Java tests write, {@link EncoderDecoderFolders}) and prints
 * one line of JSON: the folder, and the source and target whose ids the Java tests worked out by hand.
 */
public final class TinyFolders {
  private TinyFolders() {}

  public static void main(String[] args) {
    if (args.length != 3) {
      System.err.println("usage: TinyFolders DIR t5|t5v11|bart SEED");
      System.exit(2);
    }
    String type = args[1];
    Path folder = EncoderDecoderFolders.write(type, Path.of(args[0]).resolve(type), Long.parseLong(args[2]));
    com.fasterxml.jackson.databind.node.ObjectNode line = new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode();
    line.put("folder", folder.toAbsolutePath().toString());
    line.put("source", EncoderDecoderFolders.source(type));
    line.put("target", EncoderDecoderFolders.target(type));
    long[] s = EncoderDecoderFolders.sourceIds(type);
    long[] t = EncoderDecoderFolders.targetIds(type);
    java.util.Arrays.stream(s).forEach(line.putArray("source_ids")::add);
    java.util.Arrays.stream(t).forEach(line.putArray("target_ids")::add);
    System.out.println(line);
  }
}
