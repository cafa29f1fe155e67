package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.headscope.model.testing.TinyBert;
import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code headscope serve --stdio} as a client sees it (docs/PROTOCOL.md): a real server process on a tiny
 * BERT, its answers compared with what the command line prints for the same request.
 */
class ServeTest {
  @TempDir static Path dir;
  static Path model;

  @BeforeAll
  static void writeModel() {
    model = TinyBert.create(2, 2, 3).writeTo(dir.resolve("tiny")).config().getParent();
  }

  private static ObjectNode request(Object id, String op, Object... args) {
    ObjectNode r = ServeProcess.JSON.createObjectNode();
    r.set("id", ServeProcess.JSON.valueToTree(id));
    r.put("op", op);
    Map<String, Object> a = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i += 2) {
      a.put((String) args[i], args[i + 1]);
    }
    r.set("args", ServeProcess.JSON.valueToTree(a));
    return r;
  }

  private static JsonNode cli(String... args) throws Exception {
    CliHarness.Result r = CliHarness.run(args);
    assertThat(r.exit()).as(r.err()).isZero();
    return ServeProcess.JSON.readTree(r.out());
  }

  @Test
  void greetsThenAnswersEachCommandAsTheCommandLinePrintsIt() throws Exception {
    try (ServeProcess s = ServeProcess.start(model)) {
      JsonNode ready = s.next();
      assertThat(ready.get("event").asText()).isEqualTo("ready");
      assertThat(ready.get("protocol").asInt()).isEqualTo(1);
      assertThat(ready.get("family").asText()).isEqualTo("bert");
      assertThat(ready.get("layers").asInt()).isEqualTo(2);
      assertThat(ready.get("heads").asInt()).isEqualTo(2);
      assertThat(ready.get("maxTokens").asInt()).isEqualTo(64);
      assertThat(ready.get("causal").asBoolean()).isFalse();

      s.send(request(1, "hello", "protocol", 1));
      JsonNode hello = s.next();
      assertThat(hello.get("id").asInt()).isEqualTo(1);
      assertThat(hello.get("result").get("ops").toString()).contains("\"attention\"", "\"predict\"", "\"ablate\"")
          .doesNotContain("\"serve\"", "\"help\"");

      s.send(request(2, "attention", "text", "the cat sat on the mat .", "layer-norms", true, "words", false));
      JsonNode attention = s.next();
      assertThat(attention.get("id").asInt()).isEqualTo(2);
      assertThat(attention.get("ok").asBoolean()).isTrue();
      assertThat(attention.get("format").asText()).isEqualTo("json");
      assertThat(attention.get("warnings")).isEmpty();
      assertThat(attention.get("result")).isEqualTo(cli("attention", "--model", model.toString(), "--text",
          "the cat sat on the mat .", "--layer-norms"));

      // a list of heads joined with commas; L2 is the whole of layer 2
      s.send(request("p", "predict", "text", "the cat sat on the [MASK] .", "disable", List.of("1-2", "L2"), "top", 3));
      JsonNode predict = s.next();
      assertThat(predict.get("id").asText()).isEqualTo("p");
      assertThat(predict.get("result")).isEqualTo(cli("predict", "--model", model.toString(), "--text",
          "the cat sat on the [MASK] .", "--disable", "1-2,2", "--top", "3"));
      assertThat(predict.get("result").get("disabled").toString()).isEqualTo("[\"1-2\",\"2-1\",\"2-2\"]");

      // text that would be markup or break a line elsewhere stays data; the id comes back as sent
      String odd = "</script><img src=x onerror=alert(1)> \"quoted\" back\\slash café 𝔘 \u2028 tab\t end";
      s.send(request(odd, "attention", "text", odd));
      JsonNode oddAnswer = s.next();
      assertThat(oddAnswer.get("id").asText()).isEqualTo(odd);
      assertThat(oddAnswer.get("result")).isEqualTo(cli("attention", "--model", model.toString(), "--text", odd));

      // a CSV command answers its text, as the command line prints it
      s.send(request(3, "lens", "text", "the cat sat on the [MASK] .", "top", 2));
      JsonNode csv = s.next();
      assertThat(csv.get("format").asText()).isEqualTo("csv");
      CliHarness.Result lens = CliHarness.run("lens", "--model", model.toString(), "--text", "the cat sat on the [MASK] .",
          "--top", "2");
      assertThat(csv.get("result").asText()).isEqualTo(lens.out());

      assertThat(s.endOfInput()).as(s.stderr()).isZero();
    }
  }

  @Test
  void syntaxAndCorefAnswerWithTheFilesTheCommandWritesByName() throws Exception {
    Path treebanks = Path.of("..", "analysis", "src", "test", "resources", "treebanks");
    Path syntax = treebanks.resolve("syntax.conllu").toAbsolutePath();
    Path coref = treebanks.resolve("coref.conllu").toAbsolutePath();
    try (ServeProcess s = ServeProcess.start(model)) {
      s.next();
      s.send(request(1, "syntax", "treebank", syntax.toString()));
      JsonNode files = s.next();
      assertThat(files.get("ok").asBoolean()).as(files.toString()).isTrue();
      assertThat(files.get("format").asText()).isEqualTo("files");
      assertThat(files.get("result").fieldNames()).toIterable().containsExactly("relations-best.csv", "relations.csv");
      Path out = dir.resolve("cli-syntax").resolve("relations.csv");
      java.nio.file.Files.createDirectories(out.getParent());
      CliHarness.Result cli = CliHarness.run("syntax", "--model", model.toString(), "--treebank", syntax.toString(),
          "--out", out.toString());
      assertThat(cli.exit()).as(cli.err()).isZero();
      assertThat(files.get("result").get("relations.csv").asText()).isEqualTo(java.nio.file.Files.readString(out));
      assertThat(files.get("result").get("relations-best.csv").asText())
          .isEqualTo(java.nio.file.Files.readString(out.resolveSibling("relations-best.csv")));

      s.send(request(2, "coref", "treebank", coref.toString()));
      JsonNode c = s.next();
      assertThat(c.get("ok").asBoolean()).as(c.toString()).isTrue();
      assertThat(c.get("format").asText()).isEqualTo("files");
      assertThat(c.get("result").fieldNames()).toIterable().containsExactly("coref-baselines.csv", "coref.csv");
      // a treebank that is not there: one error line, and the server's folder is gone all the same
      s.send(request(3, "syntax", "treebank", dir.resolve("missing.conllu").toString()));
      JsonNode missing = s.next();
      assertThat(missing.get("ok").asBoolean()).isFalse();
      assertThat(missing.get("kind").asText()).isEqualTo("input");
      assertThat(s.endOfInput()).as(s.stderr()).isZero();
    }
    try (var left = java.nio.file.Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      assertThat(left.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("headscope-serve-")))
          .as("the server removes its folders").isEmpty();
    }
  }

  @Test
  void theNpzAttachmentHoldsTheJsonsFloat32NumbersAndTheStreamStaysInStep() throws Exception {
    try (ServeProcess s = ServeProcess.start(model)) {
      s.next();
      s.send(request(1, "attention", "text", "the cat sat .", "format", "npz"));
      JsonNode npz = s.next();
      assertThat(npz.get("format").asText()).isEqualTo("npz");
      assertThat(npz.has("result")).isFalse();
      Map<String, Npy> arrays = readNpz(s.attachment);
      s.send(request(2, "attention", "text", "the cat sat ."));
      JsonNode json = s.next().get("result");
      assertThat(arrays.keySet()).containsExactly("tokens", "ids", "attention", "value_norms");
      assertThat(arrays.get("tokens").descr()).isEqualTo("<U5");
      assertThat(arrays.get("ids").descr()).isEqualTo("<i4");
      assertThat(arrays.get("attention").shape()).containsExactly(2, 2, 6, 6);
      assertThat(arrays.get("attention").floats()).containsExactly(flatten(json.get("attention")));
      assertThat(arrays.get("value_norms").floats()).containsExactly(flatten(json.get("valueNorms")));
      int[] ids = arrays.get("ids").ints();
      for (int i = 0; i < ids.length; i++) {
        assertThat(ids[i]).isEqualTo(json.get("ids").get(i).asInt());
      }
      assertThat(s.endOfInput()).isZero();
    }
  }

  @Test
  void aBadRequestGetsOneErrorLineOfItsKindAndTheServerKeepsServing() throws Exception {
    try (ServeProcess s = ServeProcess.start(model)) {
      s.next();
      s.send("this is not json");
      assertError(s.next(), null, "usage");
      s.send("[1, 2]");
      assertError(s.next(), null, "usage");
      s.send(request(1, "attention", "text", ""));
      assertError(s.next(), 1, "input");
      s.send(request(2, "attention", "text", "a", "no-such-option", 3));
      assertThat(assertError(s.next(), 2, "usage").get("error").asText()).contains("no-such-option");
      s.send(request(3, "attention", "text", "a", "out", "x.json"));
      assertError(s.next(), 3, "usage");
      s.send(request(4, "attention", "text", "a", "model", "bert-base-cased"));
      assertError(s.next(), 4, "usage");
      s.send(request(5, "no-such-op"));
      assertError(s.next(), 5, "usage");
      s.send(request(6, "hello", "protocol", 2));
      assertError(s.next(), 6, "usage");
      s.send(request(7, "predict", "text", "no mask here"));
      JsonNode noMask = assertError(s.next(), 7, "input");
      assertThat(noMask.get("error").asText()).doesNotStartWith("headscope:").doesNotContain("\n", "\tat ");
      s.send(request(8, "attention", "text", "the model still answers ."));
      assertThat(s.next().get("ok").asBoolean()).isTrue();
      assertThat(s.endOfInput()).isZero();
    }
  }

  @Test
  void warningsTheCommandPrintsComeWithItsAnswer() throws Exception {
    try (ServeProcess s = ServeProcess.start(model)) {
      s.next();
      s.send(request(1, "attention", "text", "the cat sat . ".repeat(40)));
      JsonNode truncated = s.next();
      assertThat(truncated.get("ok").asBoolean()).isTrue();
      assertThat(truncated.get("warnings")).hasSize(1);
      assertThat(truncated.get("warnings").get(0).asText()).startsWith("warning: the input was longer than the model's maximum of 64");
      s.send(request(2, "attention", "text", "the [mask] sat ."));
      assertThat(s.next().get("warnings").get(0).asText()).startsWith("warning: \"[mask]\" is not the mask token");
      s.send(request(3, "attention", "text", "the cat sat ."));
      assertThat(s.next().get("warnings")).isEmpty();
      assertThat(s.endOfInput()).isZero();
    }
  }

  @Test
  void cancelStopsARunningAblationQuicklyAndAQueuedRequestAtOnce() throws Exception {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 20000; i++) {
      lines.add("the cat sat on the mat and the dog ran to the house .");
    }
    Path corpus = Files.write(dir.resolve("long.txt"), lines);
    try (ServeProcess s = ServeProcess.start(model)) {
      s.next();
      s.send(request("long", "ablate", "corpus", corpus.toString()));
      s.send(request("queued", "attention", "text", "the cat sat ."));
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (!s.stderr().contains("headscope: ablate ") && System.nanoTime() < deadline) {
        Thread.sleep(50); // the sweep's first progress line: it is running
      }
      assertThat(s.stderr()).contains("headscope: ablate ");
      s.send(request("c1", "cancel", "target", "queued"));
      assertError(s.next(), "queued", "cancelled");
      assertThat(s.next().get("result").get("was").asText()).isEqualTo("queued");
      long sent = System.nanoTime();
      s.send(request("c2", "cancel", "target", "long"));
      JsonNode cancelAnswer = s.next();
      assertThat(cancelAnswer.get("id").asText()).isEqualTo("c2");
      assertThat(cancelAnswer.get("result").get("was").asText()).isEqualTo("running");
      assertError(s.next(), "long", "cancelled");
      assertThat((System.nanoTime() - sent) / 1e9).as("seconds from cancel to the cancelled answer").isLessThan(10);
      s.send(request("after", "attention", "text", "the cat sat ."));
      JsonNode after = s.next();
      assertThat(after.get("id").asText()).isEqualTo("after");
      assertThat(after.get("ok").asBoolean()).isTrue();
      assertThat(s.endOfInput()).isZero();
    }
  }

  @Test
  void shutdownIsAnsweredThenTheServerExitsZero() throws Exception {
    try (ServeProcess s = ServeProcess.start(model)) {
      s.next();
      s.send(request(9, "shutdown"));
      JsonNode bye = s.next();
      assertThat(bye.toString()).isEqualTo("{\"id\":9,\"ok\":true,\"result\":null}");
      assertThat(s.drainAndExit()).isZero();
    }
  }

  @Test
  void aModelThatCannotLoadIsOneErrorEventAndExitCodeOne() throws Exception {
    try (ServeProcess s = ServeProcess.start(dir.resolve("no-such-model"))) {
      JsonNode e = s.next();
      assertThat(e.get("event").asText()).isEqualTo("error");
      assertThat(e.get("error").asText()).isNotBlank().doesNotStartWith("headscope:");
      assertThat(s.drainAndExit()).isEqualTo(1);
    }
  }

  private static JsonNode assertError(JsonNode answer, Object id, String kind) {
    assertThat(answer.get("ok").asBoolean()).as(answer.toString()).isFalse();
    assertThat(answer.get("kind").asText()).as(answer.toString()).isEqualTo(kind);
    assertThat(answer.get("error").asText()).as(answer.toString()).isNotBlank();
    if (id == null) {
      assertThat(answer.get("id").isNull()).as(answer.toString()).isTrue();
    } else {
      assertThat(answer.get("id")).isEqualTo(ServeProcess.JSON.valueToTree(id));
    }
    return answer;
  }

  /** One .npy entry of an .npz, as NumPy's format 1.0 states it. */
  record Npy(String descr, int[] shape, byte[] data) {
    float[] floats() {
      assertThat(descr).isEqualTo("<f4");
      ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
      float[] out = new float[data.length / 4];
      for (int i = 0; i < out.length; i++) {
        out[i] = b.getFloat();
      }
      return out;
    }

    int[] ints() {
      ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
      int[] out = new int[data.length / 4];
      for (int i = 0; i < out.length; i++) {
        out[i] = b.getInt();
      }
      return out;
    }
  }

  static Map<String, Npy> readNpz(byte[] npz) throws Exception {
    Map<String, Npy> out = new LinkedHashMap<>();
    try (ZipInputStream zip = new ZipInputStream(new ByteArrayInputStream(npz))) {
      ZipEntry e;
      while ((e = zip.getNextEntry()) != null) {
        assertThat(e.getMethod()).as("stored, as np.savez writes").isEqualTo(ZipEntry.STORED);
        byte[] all = zip.readAllBytes();
        int headerLength = (all[8] & 0xFF) | (all[9] & 0xFF) << 8;
        String header = new String(all, 10, headerLength, StandardCharsets.US_ASCII);
        Matcher m = Pattern.compile("\\{'descr': '([^']+)', 'fortran_order': False, 'shape': \\(([0-9, ]*)\\), \\} *\n")
            .matcher(header);
        assertThat(m.matches()).as(header).isTrue();
        int[] shape = Pattern.compile(",\\s*").splitAsStream(m.group(2)).filter(x -> !x.isBlank())
            .mapToInt(Integer::parseInt).toArray();
        byte[] data = java.util.Arrays.copyOfRange(all, 10 + headerLength, all.length);
        out.put(e.getName().replaceFirst("\\.npy$", ""), new Npy(m.group(1), shape, data));
      }
    }
    return out;
  }

  private static float[] flatten(JsonNode nested) {
    List<Float> values = new ArrayList<>();
    collect(nested, values);
    float[] out = new float[values.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = values.get(i);
    }
    return out;
  }

  private static void collect(JsonNode n, List<Float> into) {
    if (n.isArray()) {
      n.forEach(c -> collect(c, into));
    } else {
      into.add((float) n.doubleValue());
    }
  }
}
