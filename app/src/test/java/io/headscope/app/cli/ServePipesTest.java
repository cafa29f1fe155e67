package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.headscope.model.testing.TinyBert;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code headscope serve}'s pipes (issue 39): its own standard input is no corpus (G01), a client that closed
 * the answers' pipe (G02) or was killed (G03) stops the server, {@code shard} and {@code merge} are not offered
 * where they cannot work (G10, G11), and an id that is no Unicode text comes back as it was sent.
 */
@EnabledOnOs(OS.LINUX)
class ServePipesTest {
  @TempDir static Path dir;
  static Path model;

  /** One server for the tests that leave it serving (a JVM start is 5-40 s on a busy machine). */
  static ServeProcess shared;

  @BeforeAll
  static void writeModel() throws Exception {
    model = TinyBert.create(2, 2, 3).writeTo(dir.resolve("tiny")).config().getParent();
    shared = ServeProcess.start(model);
    shared.next(); // the greeting
  }

  @AfterAll
  static void endTheSharedServer() throws Exception {
    assertThat(shared.endOfInput()).as("the shared server served to the end").isZero();
    shared.close();
  }

  private static String request(String id, String op, String args) {
    return "{\"id\":\"" + id + "\",\"op\":\"" + op + "\",\"args\":" + args + "}";
  }

  @Test
  void theServersOwnStandardInputIsRefusedAsACorpusAndLaterRequestsAreAnswered() throws Exception {
    Path fifo = dir.resolve("corpus.fifo");
    assumeTrue(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0, "mkfifo works here");
    ServeProcess s = shared;
    s.send(request("stdin", "classify", "{\"corpus\":\"/dev/stdin\"}"));
    s.send(request("fd0", "token-types", "{\"corpus\":\"/proc/self/fd/0\"}"));
    s.send(request("fifo", "classify", "{\"corpus\":\"" + fifo + "\"}"));
    s.send(request("after", "attention", "{\"text\":\"the cat sat .\"}"));
    assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
      JsonNode a = s.next();
      assertThat(a.get("id").asText()).isEqualTo("stdin");
      assertThat(a.get("kind").asText()).isEqualTo("input");
      assertThat(a.get("error").asText()).contains("the server's own standard input");
      JsonNode b = s.next();
      assertThat(b.get("id").asText()).isEqualTo("fd0");
      assertThat(b.get("error").asText()).contains("the server's own standard input");
      JsonNode c = s.next();
      assertThat(c.get("id").asText()).isEqualTo("fifo");
      assertThat(c.get("error").asText()).contains("named pipe (FIFO)", "regular file");
      JsonNode d = s.next();
      assertThat(d.get("id").asText()).isEqualTo("after");
      assertThat(d.get("ok").asBoolean()).as(d.toString()).isTrue();
    });
  }

  @Test
  void shardIsRefusedBeforeAnythingRunsAndMergeIsNotOffered() throws Exception {
    Path corpus = Files.write(dir.resolve("shard.txt"), List.of("the cat sat .", "a dog ran .", "the sun rose ."));
    ServeProcess s = shared;
    for (String op : List.of("classify", "ablate", "token-types")) {
      s.send(request(op, op, "{\"corpus\":\"" + corpus + "\",\"shard\":\"0/2\"}"));
      JsonNode a = s.next();
      assertThat(a.get("id").asText()).isEqualTo(op);
      assertThat(a.get("kind").asText()).as(a.toString()).isEqualTo("usage");
      assertThat(a.get("error").asText()).contains("\"shard\" is not taken over the protocol");
    }
    Path treebank = Path.of("..", "analysis", "src", "test", "resources", "treebanks", "syntax.conllu").toAbsolutePath();
    s.send(request("syntax", "syntax", "{\"treebank\":\"" + treebank + "\",\"shard\":\"0/2\"}"));
    assertThat(s.next().get("kind").asText()).isEqualTo("usage");
    s.send(request("hello", "hello", "{}"));
    JsonNode hello = s.next();
    List<String> ops = new ArrayList<>();
    hello.get("result").get("ops").forEach(o -> ops.add(o.asText()));
    assertThat(ops).contains("classify", "syntax").doesNotContain("merge");
    s.send(request("merge", "merge", "{}"));
    JsonNode m = s.next();
    assertThat(m.get("kind").asText()).isEqualTo("usage");
    assertThat(m.get("error").asText()).contains("unknown op");
  }

  @Test
  void anIdThatIsNoUnicodeTextComesBackAsItWasSent() throws Exception {
    ServeProcess s = shared;
    s.send("{\"id\":\"\\ud800x\",\"op\":\"hello\"}");
    assertThat(s.next().get("id").asText()).isEqualTo("\ud800x");
    s.send("{\"id\":\"a\\udc00\",\"op\":\"predict\",\"args\":{\"text\":\"no mask\"}}");
    JsonNode error = s.next();
    assertThat(error.get("id").asText()).isEqualTo("a\udc00");
    s.send("{\"id\":\"\\udbff\",\"op\":\"attention\",\"args\":{\"text\":\"hi\"}}"); // a streamed JSON answer
    assertThat(s.next().get("id").asText()).isEqualTo("\udbff");
    s.send("{\"id\":\"\\ud83d\\ude00 ok\",\"op\":\"hello\"}"); // a real pair stays one character
    assertThat(s.next().get("id").asText()).isEqualTo("\ud83d\ude00 ok");
  }

  @Test
  void aClientThatClosedTheAnswersPipeStopsTheServerAtTheFirstFailedWrite() throws Exception {
    try (ServeProcess s = ServeProcess.start(model)) {
      s.next();
      s.process.getInputStream().close(); // the client stops reading
      s.send(request("a", "attention", "{\"text\":\"the cat sat .\"}"));
      s.send(request("h", "hello", "{}"));
      assertThat(s.process.waitFor(60, TimeUnit.SECONDS)).as("the server stops (stderr:%n%s)", s.stderr()).isTrue();
      assertThat(s.process.exitValue()).isEqualTo(1);
      assertThat(s.stderr()).contains("no longer reads standard output");
    }
  }

  @Test
  void aKilledClientsServerNoticesWithinSecondsAndStops() throws Exception {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 200_000; i++) {
      lines.add("the cat sat on the mat and the dog ran to the house while the sun rose over the hills .");
    }
    Path corpus = Files.write(dir.resolve("long.txt"), lines);
    Path err = dir.resolve("server.err");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC", "-cp", cp,
        ServeClientMain.class.getName(), err.toString(), request("sweep", "ablate", "{\"corpus\":\"" + corpus + "\"}"),
        java, "-Xmx512m", "-XX:+UseSerialGC", "-cp", cp, "io.headscope.app.Launcher", "serve", "--stdio", "--model",
        model.toString()));
    Process client = new ProcessBuilder(command).redirectErrorStream(true).start();
    ProcessHandle server = null;
    try {
      String pid = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8)).readLine();
      assertThat(pid).as("the client printed its server's PID").matches("\\d+");
      server = ProcessHandle.of(Long.parseLong(pid)).orElseThrow();
      long deadline = System.nanoTime() + 120_000_000_000L;
      while (!(Files.exists(err) && Files.readString(err).contains("headscope: serving")) && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      assertThat(Files.readString(err)).contains("headscope: serving");
      Thread.sleep(3000); // the sweep runs (200,000 inputs: minutes, far longer than the 30 s allowed below)
      assertThat(server.isAlive()).isTrue();
      client.destroyForcibly(); // SIGKILL: a notebook kernel's restart
      client.waitFor();
      long killed = System.nanoTime();
      assertThat(server.onExit().toCompletableFuture().completeOnTimeout(null, 30, TimeUnit.SECONDS).join())
          .as("the server stopped within 30 s of its client's death (stderr:%n%s)", Files.readString(err)).isNotNull();
      assertThat((System.nanoTime() - killed) / 1e9).isLessThan(30);
      assertThat(Files.readString(err)).contains("the client is gone");
    } finally {
      client.destroyForcibly();
      if (server != null) {
        server.destroyForcibly();
      }
    }
  }
}
