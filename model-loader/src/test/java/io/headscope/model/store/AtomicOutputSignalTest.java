package io.headscope.model.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real signals to a real process in the middle of a large write: SIGINT and SIGTERM leave no
 * temporary file; SIGKILL cannot be caught, so its temporary is swept by the next write there.
 */
@EnabledOnOs(OS.LINUX)
class AtomicOutputSignalTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"INT", "TERM", "KILL"})
  void aKilledWriteLeavesNothingOnceTheFolderIsWrittenAgain(String signal) throws Exception {
    Path out = dir.resolve("big.json");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    Process p = new ProcessBuilder(java, "-cp", cp, SlowWriter.class.getName(), out.toString())
        .redirectErrorStream(true).start();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      assertThat(r.readLine()).isEqualTo("writing");
      assertThat(temporaries()).as("the write is under way").hasSize(1);
      new ProcessBuilder("kill", "-" + signal, String.valueOf(p.pid())).start().waitFor();
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    } finally {
      p.destroyForcibly();
    }
    assertThat(out).doesNotExist();
    if (!signal.equals("KILL")) {
      assertThat(temporaries()).as("cleaned up on SIG" + signal).isEmpty();
    }
    SafeFiles.writeAtomically(dir.resolve("next.csv"), false, o -> o.write('x'));
    assertThat(temporaries()).as("nothing left after the next write").isEmpty();
  }

  private List<Path> temporaries() throws Exception {
    try (var files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".part")).toList();
    }
  }
}
