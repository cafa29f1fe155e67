package io.headscope.model.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.headscope.model.testing.ChildProcesses;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two writers into one folder that cannot see each other's processes, as shards of a Slurm array on NFS
 * or runs in two containers do: here a second PID namespace ({@code unshare --pid --mount-proc}) stands
 * for the other machine. A write there must not take the first writer's live temporary for a leftover.
 */
@EnabledOnOs(OS.LINUX)
class SharedFolderTest {
  @TempDir Path dir;

  @Test
  void aWriteFromAnotherPidNamespaceLeavesALiveWriteAlone() throws Exception {
    assumeTrue(ChildProcesses.succeeds("unshare", "--pid", "--fork", "--mount-proc", "true"),
        "unshare --pid needs root or user namespaces");
    Path big = dir.resolve("big.json");
    Path stop = dir.resolve("stop");
    Process first = new ProcessBuilder(withArgs(ChildProcesses.java(List.of(), SlowWriter.class.getName()),
        big.toString(), stop.toString())).redirectErrorStream(true).start();
    StringBuilder seen = new StringBuilder();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(first.getInputStream(), StandardCharsets.UTF_8))) {
      assertThat(r.readLine()).isEqualTo("writing");
      List<String> other = new ArrayList<>(List.of("unshare", "--pid", "--fork", "--mount-proc"));
      other.addAll(withArgs(ChildProcesses.java(List.of(), SlowWriter.class.getName()),
          dir.resolve("other.csv").toString(), "--once"));
      Process second = new ProcessBuilder(other).redirectErrorStream(true).start();
      String secondOut = new String(second.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(second.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(second.exitValue()).as(secondOut).isZero();
      Files.writeString(stop, "");
      r.lines().forEach(l -> seen.append(l).append('\n'));
      assertThat(first.waitFor(60, TimeUnit.SECONDS)).isTrue();
    } finally {
      first.destroyForcibly();
    }
    assertThat(first.exitValue()).as("the first writer:%n%s", seen).isZero();
    assertThat(seen.toString()).contains("done");
    assertThat(big).exists();
    assertThat(Files.size(big)).isGreaterThan(10L * 64 * 1024);
    assertThat(dir.resolve("other.csv")).hasContent("x");
  }

  private static List<String> withArgs(List<String> command, String... args) {
    List<String> out = new ArrayList<>(command);
    out.addAll(List.of(args));
    return out;
  }
}
