package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The meaning checks (issue 39) reach the Python bridge's server as input errors, and it keeps serving: a
 * followed word outside the vocabulary (G06), a contrast that is the target (G12), a forward pass that goes
 * non-finite (G07).
 */
class ServeMeaningChecksTest {
  @TempDir static Path dir;
  static Path model;
  static Path huge;

  @BeforeAll
  static void writeModels() {
    model = TinyBert.create(2, 2, 3).writeTo(dir.resolve("tiny")).config().getParent();
    // layer 2's feed-forward sums six terms of 3e38: +Inf in any order (MeaningChecksTest)
    huge = TinyBert.create(2, 2, 3)
        .edit("encoder.layer.1.intermediate.dense.bias", b -> Arrays.fill(b, 3e38f))
        .edit("encoder.layer.1.output.dense.weight", w -> Arrays.fill(w, 1f))
        .writeTo(dir.resolve("huge")).config().getParent();
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

  private static String inputError(JsonNode answer, int id) {
    assertThat(answer.get("ok").asBoolean()).as(answer.toString()).isFalse();
    assertThat(answer.get("kind").asText()).as(answer.toString()).isEqualTo("input");
    assertThat(answer.get("id").asInt()).isEqualTo(id);
    return answer.get("error").asText();
  }

  @Test
  void unknownWordsAndATargetAsItsOwnContrastAreInputErrors() throws Exception {
    try (ServeProcess s = ServeProcess.start(model)) {
      s.next();
      String mask = "the cat sat on the [MASK] .";
      s.send(request(1, "lens", "text", mask, "target", "猫"));
      assertThat(inputError(s.next(), 1)).contains("'猫' is not in this model's vocabulary");
      s.send(request(2, "saliency", "text", mask, "target", "cat", "contrast", "cat"));
      assertThat(inputError(s.next(), 2)).contains("is the target 'cat' itself");
      s.send(request(3, "lens", "text", mask, "target", "cat", "contrast", "dog"));
      assertThat(s.next().get("ok").asBoolean()).isTrue();
      assertThat(s.endOfInput()).isZero();
    }
  }

  @Test
  void aNonFinitePassIsAnInputError() throws Exception {
    try (ServeProcess s = ServeProcess.start(huge)) {
      s.next();
      s.send(request(1, "predict", "text", "the cat sat on the [MASK] ."));
      assertThat(inputError(s.next(), 1)).startsWith("The forward pass produced NaN/Inf at layer 2");
      assertThat(s.endOfInput()).isZero();
    }
  }
}
