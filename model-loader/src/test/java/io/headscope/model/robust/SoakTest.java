package io.headscope.model.robust;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.headscope.model.BertModel;
import io.headscope.model.TraceRequest;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.testing.ProcessStats;
import io.headscope.model.testing.TinyBert;
import io.headscope.model.tokenizer.Encoding;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fast soak: thousands of analyses in one process on a small model keep resident memory flat and
 * the thread count constant. A leak of even one small array per call shows here (the old embedding
 * leak grew RSS by megabytes per call); the full-model run is {@code ./headscope bench soak}.
 *
 * <p>The loop runs in a child JVM whose heap is fixed and touched up front ({@code -XX:+AlwaysPreTouch}),
 * so resident memory moves only with native memory: in the test JVM, RSS climbs by a few hundred MB as
 * the collector first touches its young generation, which is the heap filling, not a leak.
 */
@Tag("soak")
class SoakTest {
  private static final int WARM_UP = 300;
  private static final int CALLS = 4000;
  private static final int EVERY = 500;

  @TempDir Path dir;

  @Test
  void residentMemoryAndThreadsStayFlatOverThousandsOfAnalyses() throws Exception {
    assumeTrue(ProcessStats.available(), "needs /proc (Linux)");
    ModelFiles model = TinyBert.create(2, 4, 11).writeTo(dir.resolve("m"));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    Process p = new ProcessBuilder(java, "-Xms256m", "-Xmx256m", "-XX:+AlwaysPreTouch", "-XX:+UseSerialGC",
        "-cp", cp, SoakTest.class.getName(), model.config().toString(), model.weights().toString(),
        model.tokenizer().toString()).redirectErrorStream(true).start();
    List<ProcessStats> points = new ArrayList<>();
    StringBuilder output = new StringBuilder();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        output.append(line).append('\n');
        if (line.startsWith("point ")) {
          String[] f = line.split(" ");
          points.add(new ProcessStats(Long.parseLong(f[1]), Integer.parseInt(f[2])));
        }
      }
    }
    assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue()).as(output.toString()).isZero();
    assertThat(points).hasSize(CALLS / EVERY);
    ProcessStats first = points.get(0);
    long max = points.stream().mapToLong(ProcessStats::rssKb).max().orElseThrow();
    assertThat((max - first.rssKb()) * 100.0 / first.rssKb())
        .as("RSS growth in %% over %d analyses, points %s", CALLS, points)
        .isLessThan(10.0);
    // The JVM starts and stops a compiler thread on its own; a leak would add threads per call.
    assertThat(points).as("native threads").allMatch(q -> Math.abs(q.threads() - first.threads()) <= 2);
  }

  /** The child: loads the model files given, runs the loop, prints "point RSS_KB THREADS" every EVERY calls. */
  public static void main(String[] args) {
    try (BertModel model = BertModel.load(
        new ModelFiles("soak", Path.of(args[0]), Path.of(args[1]), Path.of(args[2])))) {
      List<Encoding> inputs = List.of(
          model.encode("the [MASK] sat on the mat.", null),
          model.encode("hello world, the dog ran.", "the cat sat."),
          model.encode("a b c d e f g h i j k l m n o p q r s t u v w x y z", null));
      HeadMask someOff = HeadMask.of(Set.of(new Head(0, 1), new Head(1, 3)), HeadMask.Mode.UNIFORM);
      for (int i = 0; i < WARM_UP; i++) {
        run(model, inputs, i, someOff);
      }
      for (int i = 1; i <= CALLS; i++) {
        run(model, inputs, i, someOff);
        if (i % EVERY == 0) {
          ProcessStats s = ProcessStats.now();
          System.out.println("point " + s.rssKb() + " " + s.threads());
        }
      }
    }
  }

  private static void run(BertModel model, List<Encoding> inputs, int i, HeadMask someOff) {
    Encoding e = inputs.get(i % inputs.size());
    if (i % 7 == 0) {
      model.trace(TraceRequest.of(inputs).mask(someOff).top(3)); // the batched path too
    } else {
      model.trace(TraceRequest.of(e).mask(i % 3 == 0 ? someOff : HeadMask.NONE).top(3)).get(0);
    }
  }
}
