package io.headscope.labels;

import io.headscope.model.BertModel;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ProgressListener;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Counts wordpieces (with {@code [CLS]}/{@code [SEP]}) of each input of a TSV with the embedded
 * bert-base-uncased tokenizer, as the model sees them (the set 3 inputs, issue 32).
 *
 * <p>Usage: {@code java -cp <test classpath> io.headscope.labels.CountWordpieces FILE.tsv}; the
 * file's columns are {@code id kind text_a text_b ...} (a header line starting with {@code id});
 * prints {@code id <tab> wordpieces}.
 */
public final class CountWordpieces {
  public static void main(String[] args) throws IOException {
    List<String> lines = Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8);
    try (BertModel model = BertModel.load(ModelRepository.standard().resolve("bert-base-uncased", ProgressListener.NONE))) {
      for (String line : lines) {
        String[] f = line.split("\t", -1);
        if (line.isBlank() || f[0].equals("id")) {
          continue;
        }
        String b = f[1].equals("pair") ? f[3] : null;
        System.out.println(f[0] + "\t" + model.encode(f[2], b).tokens().size());
      }
    }
  }

  private CountWordpieces() {}
}
