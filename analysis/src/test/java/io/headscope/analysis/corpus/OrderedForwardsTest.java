package io.headscope.analysis.corpus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.headscope.model.AttentionTrace;
import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Forward passes of a corpus on several threads at once: the caller sees the same batches, bits and order. */
class OrderedForwardsTest {
  @TempDir static Path dir;
  static BertModel model;

  @BeforeAll
  static void load() {
    model = BertModel.load(TinyBert.create(2, 2, 9).writeTo(dir.resolve("tiny")));
  }

  @AfterAll
  static void close() {
    model.close();
  }

  private static List<CorpusInput> inputs() {
    String[] words = {"the", "cat", "sat", "on", "mat", "dog", "ran", "king", "paris", "queen", "france", "red"};
    List<CorpusInput> out = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      StringBuilder s = new StringBuilder();
      for (int k = 0; k < 3 + (i * 7) % 11; k++) {
        s.append(words[(i * 5 + k * 3) % words.length]).append(' ');
      }
      out.add(new CorpusInput(i + 1, s.toString().trim(), i % 3 == 0 ? "the dog ran ." : null));
    }
    return out;
  }

  private static List<AttentionTrace> run(int workers) {
    List<AttentionTrace> seen = new ArrayList<>();
    Iterator<CorpusInput> it = inputs().iterator();
    new CorpusBatches(model, 4, false, workers).run("test", () -> it.hasNext() ? it.next() : null, in -> {}, () -> -1,
        40, CorpusAnalysis.Progress.NONE, () -> false, seen::addAll);
    return seen;
  }

  @Test
  void anyNumberOfWorkersHandsTheSameTracesInTheSameOrder() {
    List<AttentionTrace> one = run(1);
    assertThat(one).hasSize(40);
    for (int workers : new int[] {2, 3}) {
      List<AttentionTrace> many = run(workers);
      assertThat(many).hasSize(40);
      for (int i = 0; i < 40; i++) {
        assertThat(many.get(i).encoding().ids()).as("input %d", i).containsExactly(one.get(i).encoding().ids());
        assertThat(Arrays.deepEquals(many.get(i).attention(), one.get(i).attention())).as("maps of input %d", i).isTrue();
        assertThat(Arrays.deepEquals(many.get(i).valueNorms(), one.get(i).valueNorms())).as("norms %d", i).isTrue();
      }
    }
  }

  @Test
  void aFailingBatchComesOutOfTheRunAsThrown() {
    try (OrderedForwards f = new OrderedForwards(2, 100)) {
      f.submit(() -> {
        throw new HeadScopeException("bad batch");
      }, 3, 10);
      assertThatThrownBy(() -> f.next(t -> {})).isInstanceOf(HeadScopeException.class).hasMessage("bad batch");
    }
  }

  @Test
  void atMostOneBatchPerWorkerIsInFlightAndBigOnesRunOnTheCallersThread() {
    try (OrderedForwards f = new OrderedForwards(2, 100)) {
      f.submit(List::of, 1, 10);
      assertThat(f.full()).isFalse();
      f.submit(List::of, 2, 10);
      assertThat(f.full()).isTrue();
      assertThat(f.next(t -> {})).isEqualTo(1);
      assertThat(f.next(t -> {})).isEqualTo(2);
      assertThat(f.isEmpty()).isTrue();
      // a batch over its share of the budget runs at once, on this thread
      Thread[] ranOn = new Thread[1];
      f.submit(() -> {
        ranOn[0] = Thread.currentThread();
        return List.of();
      }, 1, 51);
      assertThat(ranOn[0]).isSameAs(Thread.currentThread());
      f.submit(() -> {
        ranOn[0] = Thread.currentThread();
        return List.of();
      }, 1, 50);
      f.next(t -> {});
      f.next(t -> {});
      assertThat(ranOn[0]).isNotSameAs(Thread.currentThread());
    }
  }
}
