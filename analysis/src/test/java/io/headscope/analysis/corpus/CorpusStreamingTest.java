package io.headscope.analysis.corpus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.testing.TinyBert;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A corpus is streamed: work starts before the file is read to its end, memory holds one chunk and
 * not the file, and files that are not corpora (no line breaks, NUL bytes, nothing but blank lines)
 * end with one sentence instead of an OutOfMemoryError.
 */
class CorpusStreamingTest {
  @TempDir static Path dir;
  static BertModel model;

  @BeforeAll
  static void load() {
    model = BertModel.load(TinyBert.create(2, 2, 4).writeTo(dir.resolve("tiny")));
  }

  @AfterAll
  static void close() {
    model.close();
  }

  /** A million lines made up as they are read: never held anywhere as a whole. */
  static final class EndlessCorpus extends InputStream {
    final AtomicLong lines = new AtomicLong();
    private final byte[] line = "the cat sat on the mat .\n".getBytes(StandardCharsets.UTF_8);
    private int pos;

    @Override
    public int read() {
      if (pos == line.length) {
        pos = 0;
      }
      if (pos == 0) {
        if (lines.get() == 1_000_000) {
          return -1;
        }
        lines.incrementAndGet();
      }
      return line[pos++];
    }
  }

  @Test
  void workStartsAfterOneChunkNotAfterTheWholeFile() {
    EndlessCorpus endless = new EndlessCorpus();
    AtomicInteger firstReport = new AtomicInteger(-1);
    AtomicLong readByThen = new AtomicLong();
    CorpusAnalysis.Progress progress = (done, total) -> {
      if (done > 0 && firstReport.get() < 0) {
        firstReport.set(done);
        readByThen.set(endless.lines.get());
      }
    };
    try (CorpusLines lines = CorpusLines.of("endless", endless, CorpusReader.MAX_CHARS)) {
      assertThatThrownBy(() -> new CorpusAnalysis(model, new HeadClassifier(), 16)
          .run(lines, progress, () -> firstReport.get() > 0))
          .isInstanceOf(CancellationException.class);
    }
    assertThat(firstReport.get()).as("the first batch reports").isEqualTo(16);
    assertThat(readByThen.get()).as("lines read before the first batch ran")
        .isLessThanOrEqualTo(CorpusAnalysis.CHUNK_INPUTS + 1L);
  }

  @Test
  void aStreamedRunEqualsTheInMemoryRunOnAShippedCorpus() throws IOException {
    Path file = dir.resolve("pairs.txt");
    try (InputStream in = CorpusReader.class.getResourceAsStream("/headscope/corpus/english-pairs.txt")) {
      Files.write(file, in.readAllBytes());
    }
    CorpusAnalysis analysis = new CorpusAnalysis(model, new HeadClassifier(), 16);
    CorpusResult inMemory = analysis.run(CorpusReader.read(file), CorpusAnalysis.Progress.NONE, () -> false);
    CorpusResult streamed;
    try (CorpusLines lines = CorpusLines.open(file, CorpusReader.MAX_CHARS)) {
      streamed = analysis.run(lines, CorpusAnalysis.Progress.NONE, () -> false);
    }
    assertThat(streamed.inputs()).isEqualTo(inMemory.inputs());
    assertThat(streamed.perHead()).isEqualTo(inMemory.perHead());
    assertThat(streamed.perLayer()).isEqualTo(inMemory.perLayer());
  }

  @Test
  void aFileWithNulBytesIsNotACorpus() throws IOException {
    Path zeros = Files.write(dir.resolve("zeros.bin"), new byte[4096]);
    assertThatThrownBy(() -> CorpusReader.read(zeros)).isInstanceOf(HeadScopeException.class)
        .hasMessageContaining("not a text file");
  }

  @Test
  void aFileWithoutLineBreaksStopsAtTheLimitWithoutHoldingTheLine() {
    InputStream noBreaks = new InputStream() {
      @Override
      public int read() {
        return 'a';
      }
    };
    try (CorpusLines lines = CorpusLines.of("no-breaks", noBreaks, CorpusReader.MAX_CHARS)) {
      assertThatThrownBy(lines::next).isInstanceOf(HeadScopeException.class)
          .hasMessageContaining("without a line break");
    }
  }

  @Test
  void millionsOfBlankLinesKeepAThousandProblemsAndCountTheRest() {
    InputStream blanks = new InputStream() {
      int left = 2_000_000;

      @Override
      public int read() {
        return left-- > 0 ? '\n' : -1;
      }
    };
    try (CorpusLines lines = CorpusLines.of("blanks", blanks, CorpusReader.MAX_CHARS)) {
      assertThat(lines.next()).isNull();
      assertThat(lines.problemCount()).isEqualTo(2_000_000);
      assertThat(lines.problems()).hasSize(CorpusLines.KEPT_PROBLEMS);
      assertThat(lines.problems().get(999).line()).isEqualTo(1000);
    }
  }
}
