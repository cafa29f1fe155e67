package io.headscope.app.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.headscope.app.cli.HeadScopeCli;
import io.headscope.model.testing.TinyBert;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nothing in HeadScope listens on a network port (BertViz-style tools serve their pages from a local
 * web server; we draw in the process). Read from the kernel: this process's socket inodes against
 * the TCP tables' LISTEN entries. The probe is first shown to see a socket we open on purpose.
 */
class NoListeningSocketTest {
  @TempDir Path dir;

  @Test
  void theCommandsOpenNoListeningSocket() throws IOException {
    assumeTrue(Files.isReadable(Path.of("/proc/self/net/tcp")), "needs Linux /proc");
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      assertThat(listeningSockets()).as("the probe sees a socket opened on purpose").isNotEmpty();
    }
    assertThat(listeningSockets()).isEmpty();

    String model = TinyBert.create(2, 4, 5).writeTo(dir.resolve("m")).config().getParent().toString();
    PrintStream out = System.out;
    PrintStream err = System.err;
    try (PrintStream sink = new PrintStream(OutputStream.nullOutputStream())) {
      System.setOut(sink);
      System.setErr(sink);
      assertThat(HeadScopeCli.run("attention", "--model", model, "--text", "the cat sat.")).isZero();
      assertThat(HeadScopeCli.run("predict", "--model", model, "--text", "the [MASK] sat.", "--disable", "1-2"))
          .isZero();
      assertThat(HeadScopeCli.run("ablate", "--model", model, "--text", "the [MASK] sat.", "--out",
          dir.resolve("a.csv").toString())).isZero();
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
    assertThat(listeningSockets()).as("listening sockets after running the commands").isEmpty();
  }

  /** Inodes of this process's TCP sockets in state LISTEN (0A). */
  private static Set<String> listeningSockets() throws IOException {
    Set<String> mine = new HashSet<>();
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      for (Path fd : fds.toList()) {
        try {
          String target = Files.readSymbolicLink(fd).toString();
          if (target.startsWith("socket:[")) {
            mine.add(target.substring(8, target.length() - 1));
          }
        } catch (IOException closedMeanwhile) {
          // the fd of the listing itself, or one closed while we looked
        }
      }
    }
    Set<String> listening = new HashSet<>();
    for (String table : List.of("/proc/self/net/tcp", "/proc/self/net/tcp6")) {
      Path p = Path.of(table);
      if (!Files.isReadable(p)) {
        continue;
      }
      for (String line : Files.readAllLines(p).subList(1, Files.readAllLines(p).size())) {
        String[] f = line.trim().split("\\s+");
        if (f.length > 9 && f[3].equals("0A") && mine.contains(f[9])) {
          listening.add(f[9]);
        }
      }
    }
    return listening;
  }
}
