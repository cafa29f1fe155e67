package io.headscope.model.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.testing.ChildProcesses;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
    // SIGINT at its default action even when this suite runs as a background job (which ignores it)
    List<String> command = new ArrayList<>(
        ChildProcesses.withDefaultSigint(ChildProcesses.java(List.of(), SlowWriter.class.getName())));
    command.add(out.toString());
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      assertThat(r.readLine()).isEqualTo("writing");
      assertThat(temporaries()).as("the write is under way").hasSize(1);
      assertThat(ChildProcesses.sigintIgnored(p.pid())).as("the child JVM started with SIGINT ignored").isFalse();
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
