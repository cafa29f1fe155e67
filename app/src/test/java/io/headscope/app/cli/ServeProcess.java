package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code headscope serve --stdio} in its own JVM, spoken to as a client does. Every line read from
 * its standard output must parse as one JSON object, and an answer that announces {@code bytes} is followed
 * by exactly that many bytes: anything else on standard output fails the test that reads it.
 */
final class ServeProcess implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();

  final Process process;
  private final OutputStream in;
  private final InputStream out;
  private final StringBuffer err = new StringBuffer();
  /** The bytes after the last answer that announced some. */
  byte[] attachment;

  private ServeProcess(Process p) {
    this.process = p;
    this.in = p.getOutputStream();
    this.out = new BufferedInputStream(p.getInputStream());
    Thread drain = new Thread(() -> {
      try (InputStream e = p.getErrorStream()) {
        byte[] buf = new byte[8192];
        int n;
        while ((n = e.read(buf)) > 0) {
          err.append(new String(buf, 0, n, StandardCharsets.UTF_8));
        }
      } catch (IOException ignored) {
        // the process ended
      }
    }, "serve-test-stderr");
    drain.setDaemon(true);
    drain.start();
  }

  static ServeProcess start(Path model, String... extra) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> command = new ArrayList<>(List.of(java, "-Xmx512m", "-XX:+UseSerialGC", "-cp", cp,
        "io.headscope.app.Launcher", "serve", "--stdio", "--model", model.toString()));
    command.addAll(List.of(extra));
    return new ServeProcess(new ProcessBuilder(command).start());
  }

  /** Sends one request line (a line break is added). */
  void send(String line) throws IOException {
    in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  /** Sends a request built from a tree. */
  void send(JsonNode request) throws IOException {
    send(JSON.writeValueAsString(request));
  }

  /** The next line of standard output, which must be one JSON object, and its attachment if it has one. */
  JsonNode next() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = out.read()) != -1 && b != '\n') {
      line.write(b);
    }
    assertThat(b).as("a whole line before the end of standard output (stderr:%n%s)", err).isEqualTo('\n');
    String text = line.toString(StandardCharsets.UTF_8);
    JsonNode node;
    try {
      node = JSON.readTree(text);
    } catch (IOException e) {
      throw new AssertionError("not a JSON line on standard output: " + text + "\nstderr:\n" + err, e);
    }
    assertThat(node.isObject()).as(text).isTrue();
    attachment = null;
    if (node.has("bytes")) {
      attachment = out.readNBytes(node.get("bytes").asInt());
      assertThat(attachment).hasSize(node.get("bytes").asInt());
    }
    return node;
  }

  /** Closes standard input only (the end of input), leaving the answers to be read. */
  void closeInput() throws IOException {
    in.close();
  }

  /** Closes standard input and waits for the exit; whatever else standard output holds must be protocol lines. */
  int endOfInput() throws IOException, InterruptedException {
    in.close();
    return drainAndExit();
  }

  /** Reads the rest of standard output (protocol lines only) and the exit code. */
  int drainAndExit() throws IOException, InterruptedException {
    while (true) {
      out.mark(1);
      if (out.read() == -1) {
        break;
      }
      out.reset();
      next();
    }
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the server exits (stderr:%n%s)", err).isTrue();
    return process.exitValue();
  }

  String stderr() {
    return err.toString();
  }

  @Override
  public void close() {
    process.destroyForcibly();
  }
}
