package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.headscope.analysis.export.NpzReader;
import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Hook functions over the protocol (docs/PROTOCOL.md, "Hook functions"): a real server on a tiny BERT asks its
 * client in the middle of `run`, and what the client replies is what flows on; the end of input ends a wait.
 */
class ServeHooksTest extends OnTinyModel {
  static final String POINT = "blocks.0.hook_resid_post";

  private static ObjectNode run(int id) {
    ObjectNode r = ServeProcess.JSON.createObjectNode();
    r.put("id", id);
    r.put("op", "run");
    ObjectNode a = r.putObject("args");
    a.put("text", "the cat sat on the [MASK] .");
    a.putArray("python-hooks").add(POINT);
    a.putArray("cache").add(POINT);
    a.put("no-logits", true);
    return r;
  }

  private static ObjectNode reply(JsonNode ask, String key, Object value) {
    ObjectNode r = reply(ask);
    ((ObjectNode) r.get("args")).set(key, ServeProcess.JSON.valueToTree(value));
    return r;
  }

  private static ObjectNode reply(JsonNode ask) {
    ObjectNode r = ServeProcess.JSON.createObjectNode();
    r.put("op", "reply");
    ObjectNode a = r.putObject("args");
    a.set("target", ask.get("id"));
    a.put("call", ask.get("call").asLong());
    return r;
  }

  private static float[] floats(byte[] raw) {
    float[] f = new float[raw.length / 4];
    ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(f);
    return f;
  }

  private static double[] cached(ServeProcess s, JsonNode answer) throws Exception {
    assertThat(answer.get("ok").asBoolean()).as(answer.toString()).isTrue();
    Map<String, NpzReader.Array> z = NpzReader.read(new ByteArrayInputStream(s.attachment));
    return z.get(POINT).numbers();
  }

  @Test
  void theClientsReplyIsWhatFlowsOn() throws Exception {
    try (ServeProcess s = ServeProcess.start(model)) {
      assertThat(s.next().get("event").asText()).isEqualTo("ready");
      s.send(run(1));
      JsonNode ask = s.next();
      assertThat(ask.get("id").asInt()).isEqualTo(1);
      assertThat(ask.get("event").asText()).isEqualTo("hook");
      assertThat(ask.get("name").asText()).isEqualTo(POINT);
      assertThat(ask.get("hook").asInt()).isZero();
      float[] value = floats(s.attachment);
      int t = ask.get("shape").get(1).asInt();
      assertThat(ask.get("shape").toString()).isEqualTo("[1," + t + ",8]");
      assertThat(value).hasSize(t * 8);
      // unchanged: the cache holds the value the client saw, bit for bit
      s.send(reply(ask, "unchanged", true));
      JsonNode answer = s.next();
      double[] kept = cached(s, answer);
      for (int i = 0; i < value.length; i++) {
        assertThat((float) kept[i]).isEqualTo(value[i]);
      }
      // a new value: 2x, little-endian float32 in base64
      s.send(run(2));
      ask = s.next();
      ByteBuffer b = ByteBuffer.allocate(4 * value.length).order(ByteOrder.LITTLE_ENDIAN);
      for (float v : value) {
        b.putFloat(2 * v);
      }
      // a stale reply (an earlier call) is dropped, the right one is taken
      ObjectNode stale = reply(ask, "unchanged", true);
      ((ObjectNode) stale.get("args")).put("call", ask.get("call").asLong() - 1);
      s.send(stale);
      ObjectNode doubled = reply(ask);
      ((ObjectNode) doubled.get("args")).put("data", Base64.getEncoder().encodeToString(b.array()));
      s.send(doubled);
      kept = cached(s, s.next());
      for (int i = 0; i < value.length; i++) {
        assertThat((float) kept[i]).isEqualTo(2 * value[i]);
      }
      // an error reply fails the request with the client's words
      s.send(run(3));
      ask = s.next();
      s.send(reply(ask, "error", "ZeroDivisionError: division by zero"));
      JsonNode failed = s.next();
      assertThat(failed.get("ok").asBoolean()).isFalse();
      assertThat(failed.get("error").asText()).contains("ZeroDivisionError");
      // the end of input while the server waits: the request fails, the server exits 0
      s.send(run(4));
      assertThat(s.next().get("event").asText()).isEqualTo("hook");
      s.closeInput();
      JsonNode last = s.next();
      assertThat(last.get("id").asInt()).isEqualTo(4);
      assertThat(last.get("ok").asBoolean()).isFalse();
      assertThat(s.drainAndExit()).isZero();
    }
  }

  @Test
  void theCommandLineRefusesPythonHooks() {
    CliHarness.Result r = CliHarness.run("run", "--model", model.toString(), "--text", "hi", "--python-hooks", POINT,
        "--out", dir.resolve("x.npz").toString());
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.errLines()).hasSize(1);
  }
}
