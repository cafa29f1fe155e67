package io.headscope.analysis.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.analysis.corpus.Shard;
import io.headscope.model.core.HeadScopeException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The partial-result format on its own, without a command: what is written reads back, and parts are checked. */
class PartialFileTest {
  @TempDir Path dir;

  record Sums(int line, double[] values) {}

  static final Map<String, String> MODELS = Map.of("weights", "0a".repeat(32), "tokenizer", "0b".repeat(32),
      "config", "0c".repeat(32));

  private Path part(Shard shard, Map<String, String> settings, List<?> records) throws IOException {
    PartialFile.CorpusId corpus = new PartialFile.CorpusId("corpus.txt", "ab".repeat(32), 12);
    PartialFile.Contents c = new PartialFile.Contents(new PartialFile.Header("ablate", shard, "tiny", corpus,
        settings), records, records.size() + " inputs").withModels(MODELS);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PartialFile.content(c).writeTo(bytes);
    Path file = dir.resolve("part-" + shard.index() + ".part");
    Files.write(file, bytes.toByteArray());
    return file;
  }

  @Test
  void aPartReadsBackWithItsHeaderAndRecordsAndDoublesKeepTheirBits() throws IOException {
    double tiny = Math.nextUp(0.1);
    Path p = part(new Shard(1, 2), Map.of("seed", "7"), List.of(new Sums(3, new double[] {tiny, -0.0, 1e-310})));
    String first = Files.readAllLines(p, StandardCharsets.UTF_8).get(0);
    assertThat(first).startsWith("{\"headscope_partial\":2,\"command\":\"ablate\",\"shard\":\"1/2\"");
    PartialFile.Part read = PartialFile.read(p);
    assertThat(read.header().shard()).isEqualTo(new Shard(1, 2));
    assertThat(read.header().settings()).containsEntry("seed", "7");
    Sums s = PartialFile.JSON.treeToValue(read.records().get(0), Sums.class);
    assertThat(s.line()).isEqualTo(3);
    assertThat(Double.doubleToRawLongBits(s.values()[0])).isEqualTo(Double.doubleToRawLongBits(tiny));
    assertThat(Double.doubleToRawLongBits(s.values()[1])).isEqualTo(Double.doubleToRawLongBits(-0.0));
    assertThat(s.values()[2]).isEqualTo(1e-310);
  }

  @Test
  void partsOfOneRunComeBackInShardOrderAndAMissingOrCutPartIsRefused() throws IOException {
    Path a = part(new Shard(0, 2), Map.of(), List.of(new Sums(0, new double[0])));
    Path b = part(new Shard(1, 2), Map.of(), List.of(new Sums(1, new double[0])));
    assertThat(PartialFile.readAll(List.of(b, a))).extracting(PartialFile.Part::path).containsExactly(a, b);
    assertThatThrownBy(() -> PartialFile.readAll(List.of(b))).isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("Shard 0/2 is missing");
    Path other = part(new Shard(0, 2), Map.of("seed", "8"), List.of());
    assertThatThrownBy(() -> PartialFile.readAll(List.of(other, b))).hasMessageContaining("different settings");
    List<String> lines = Files.readAllLines(a, StandardCharsets.UTF_8);
    Files.write(a, lines.subList(0, lines.size() - 1), StandardCharsets.UTF_8);
    assertThatThrownBy(() -> PartialFile.read(a)).hasMessageContaining("is incomplete");
  }

  @Test
  void anEditedPartIsRefusedByTheSha256OfItsRecords() throws IOException {
    Path a = part(new Shard(0, 2), Map.of(), List.of(new Sums(0, new double[] {1}), new Sums(2, new double[] {2})));
    List<String> lines = Files.readAllLines(a, StandardCharsets.UTF_8);
    // a record moved to another line, the count untouched
    List<String> moved = new java.util.ArrayList<>(lines);
    moved.set(2, moved.get(2).replace("\"line\":2", "\"line\":4"));
    Files.write(a, moved, StandardCharsets.UTF_8);
    assertThatThrownBy(() -> PartialFile.read(a)).isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("do not match their SHA-256");
    // a record deleted and the end line's count edited to match
    List<String> deleted = new java.util.ArrayList<>(lines);
    deleted.remove(2);
    deleted.set(2, deleted.get(2).replace("\"records\":2", "\"records\":1"));
    Files.write(a, deleted, StandardCharsets.UTF_8);
    assertThatThrownBy(() -> PartialFile.read(a)).isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("do not match their SHA-256");
    Files.write(a, lines, StandardCharsets.UTF_8);
    assertThat(PartialFile.read(a).records()).hasSize(2);
  }

  @Test
  void partsOfTwoCheckpointsWithOneNameAreRefused() throws IOException {
    Path a = part(new Shard(0, 2), Map.of(), List.of());
    PartialFile.CorpusId corpus = new PartialFile.CorpusId("corpus.txt", "ab".repeat(32), 12);
    PartialFile.Contents other = new PartialFile.Contents(new PartialFile.Header("ablate", new Shard(1, 2), "tiny",
        corpus, Map.of()), List.of(), "0 inputs").withModels(Map.of("weights", "1a".repeat(32), "tokenizer",
        "0b".repeat(32), "config", "0c".repeat(32)));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PartialFile.content(other).writeTo(bytes);
    Path b = Files.write(dir.resolve("retrained.part"), bytes.toByteArray());
    assertThatThrownBy(() -> PartialFile.readAll(List.of(a, b))).isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("different checkpoints of tiny").hasMessageContaining("weights 0a0a");
  }

  @Test
  void aPartClaimingABillionShardsIsAnsweredNotRunOutOfMemory() throws IOException {
    Path a = part(new Shard(0, 2), Map.of(), List.of());
    List<String> lines = Files.readAllLines(a, StandardCharsets.UTF_8);
    lines.set(0, lines.get(0).replace("\"shard\":\"0/2\"", "\"shard\":\"0/999999999\""));
    Files.write(a, lines, StandardCharsets.UTF_8);
    assertThatThrownBy(() -> PartialFile.readAll(List.of(a))).isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("at most 1000000 parts");
    // the most --shard allows: the missing ones are named, a few, with their count
    Path b = part(new Shard(0, 1_000_000), Map.of(), List.of());
    assertThatThrownBy(() -> PartialFile.readAll(List.of(b))).isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("Shards 1/1000000, 2/1000000").hasMessageContaining("(999999 in all) are missing");
  }
}
