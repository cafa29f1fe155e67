package io.headscope.app.cli.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.IntNode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The protocol's pieces without a model: request args to options, answer lines, attachments. */
class ProtocolPiecesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final StdioServer.Model SERVED = new StdioServer.Model("bert-base-uncased", "bert-base-uncased",
      "bert", 12, 12, 512, false, false, null);

  private static List<String> options(String args) throws Exception {
    return RequestArgs.options(JSON.readTree(args), SERVED);
  }

  @Test
  void argsBecomeLongOptionsAsTheContractSays() throws Exception {
    assertThat(options("{\"text\": \"-starts with a dash\", \"top\": 3, \"layer_norms\": true, \"words\": false, "
        + "\"pair\": null, \"disable\": [\"8-10\", \"L11\", 3]}"))
        .containsExactly("--text=-starts with a dash", "--top=3", "--layer-norms", "--disable=8-10,L11,3");
    assertThat(options("{\"model\": \"bert-base-uncased\", \"offline\": false}")).isEmpty();
  }

  @Test
  void argsThatWouldEscapeThePipeOrTheModelAreRefused() {
    for (String refused : List.of("{\"out\": \"a.json\"}", "{\"force\": true}", "{\"model\": \"bert-base-cased\"}",
        "{\"offline\": true}", "{\"gelu\": \"gelu_new\"}", "{\"help\": true}", "{\"--text\": \"x\"}",
        "{\"text\": {\"a\": 1}}", "[1]")) {
      assertThatThrownBy(() -> options(refused)).as(refused).isInstanceOf(RequestArgs.Refused.class);
    }
  }

  @Test
  void aPrettyPrintedResultGoesOnOneLineWithItsStringsUntouched() throws Exception {
    String pretty = "{\n  \"a\" : [ 1.5, -2 ],\n  \"s\" : \"two  spaces\\n and \\\" a quote\"\n}";
    String line = ProtocolWriter.compact(pretty);
    assertThat(line).isEqualTo("{\"a\":[1.5,-2],\"s\":\"two  spaces\\n and \\\" a quote\"}");
    assertThat(JSON.readTree(line)).isEqualTo(JSON.readTree(pretty));
  }

  @Test
  void anAttachmentFollowsItsLineAndAResultThatIsNotJsonIsAnInternalError() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ProtocolWriter w = new ProtocolWriter(out);
    w.answer(IntNode.valueOf(1), Answer.binary("npz", new byte[] {'\n', 0, 'x'}, List.of("warning: w")));
    w.answer(IntNode.valueOf(2), Answer.result("json", "{\"x\": NaN}".getBytes(StandardCharsets.UTF_8), List.of()));
    w.answer(IntNode.valueOf(4), Answer.result("json", "{\n  \"é\" : [ 1 ]\n}".getBytes(StandardCharsets.UTF_8),
        List.of("warning: w")));
    w.answer(IntNode.valueOf(3), Answer.result("csv", "a,b\n1,2\n".getBytes(StandardCharsets.UTF_8), List.of()));
    byte[] bytes = out.toByteArray();
    String all = new String(bytes, StandardCharsets.ISO_8859_1);
    String first = all.substring(0, all.indexOf('\n'));
    assertThat(first).isEqualTo("{\"id\":1,\"ok\":true,\"format\":\"npz\",\"bytes\":3,\"warnings\":[\"warning: w\"]}");
    String rest = new String(bytes, first.length() + 1 + 3, bytes.length - first.length() - 4, StandardCharsets.UTF_8);
    List<String> lines = rest.lines().toList();
    assertThat(lines).hasSize(3);
    JsonNode bad = JSON.readTree(lines.get(0));
    assertThat(bad.get("kind").asText()).isEqualTo("internal");
    assertThat(lines.get(1)).isEqualTo("{\"id\":4,\"ok\":true,\"format\":\"json\",\"result\":{\"é\":[1]},\"warnings\":[\"warning: w\"]}");
    assertThat(JSON.readTree(lines.get(2)).get("result").asText()).isEqualTo("a,b\n1,2\n");
  }
}
