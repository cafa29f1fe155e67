package io.headscope.app.cli;

import io.headscope.analysis.shard.PartialFile;
import io.headscope.model.BertModel;
import io.headscope.model.store.ModelFiles;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** Writes a shard's partial result where --out says, then says on stderr what the shard held. */
final class PartialOutput {
  private PartialOutput() {}

  /**
   * @param models the run's model, and for {@code compare} the one it is compared with: recorded by the
   *     SHA-256 of their files, so that merge tells checkpoints apart that share a name
   */
  static void write(Path out, boolean force, PartialFile.Contents part, BertModel... models) {
    PartialFile.Contents identified = part.withModels(identities(models));
    Output.write(out, force, PartialFile.content(identified), false);
    System.err.println("headscope: shard " + part.header().shard() + ": " + part.summary());
  }

  static void write(CsvOutput output, PartialFile.Contents part, BertModel... models) {
    write(output.out, output.force, part, models);
  }

  private static Map<String, String> identities(BertModel... models) {
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < models.length; i++) {
      ModelFiles.Identity id = models[i].identity();
      String prefix = i == 0 ? "" : "with_";
      out.put(prefix + "weights", id.weights());
      out.put(prefix + "tokenizer", id.tokenizer());
      out.put(prefix + "config", id.config());
    }
    return out;
  }
}
