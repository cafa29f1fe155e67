package io.headscope.app.gui.compare;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Compare on an input the app keeps as summaries says in one line why not, with the size the maps would have. */
class CompareSummaryTest {
  @TempDir Path dir;

  @Test
  void aSummaryTraceIsNotComparedAndTheLineSaysWhy() {
    try (BertModel model = BertModel.load(TinyBert.create(2, 3, 31).writeTo(dir.resolve("tiny")))) {
      AttentionTrace t = model.trace(TraceRequest.of(model.encode("the cat sat", null)).summaries()).get(0);
      String line = CompareViewModel.tooLongToCompare(t);
      assertThat(line).contains("kept as summaries").contains("shorter input").doesNotContain("\n");
    }
  }
}
